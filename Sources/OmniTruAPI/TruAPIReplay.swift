import FoundationEssentials
import OmniCodec

/// `omni truapi replay`: sends the product frames of a `--trace-frames` recording to a bridge and compares what
/// comes back with what was recorded — golden tests for product teams.
///
/// Each recorded connection is replayed on a connection of its own, one after the other. Before a recorded product
/// frame is sent, the host frames recorded before it must have come back (bounded by the timeout), so a write
/// still precedes the read that followed it, and a stop the stream it ended. Frames are compared as trace lines
/// (request id, wire id, method, kind, decoded and redacted payload, payload hex when not redacted); responses may
/// arrive in another order, as the protocol allows.
public enum TruAPIReplay {
    public struct Entry: Sendable {
        public let line: Int
        public let connection: Int
        public let direction: TruAPITrace.Direction
        /// The frame's trace fields, without connection, direction and protocol.
        public let fields: JSONObject
        /// The bytes to send, for product frames.
        public let bytes: [UInt8]?
    }

    public struct Difference: Sendable {
        public enum Kind: String, Sendable { case missing, unexpected, changed }
        public let kind: Kind
        public let connection: Int
        /// The recording's line of the expected frame (nil for an unexpected one).
        public let line: Int?
        public let expected: JSONValue?
        public let got: JSONValue?

        public var json: JSONValue {
            var object = JSONObject()
            object.append("kind", .string(kind.rawValue))
            object.append("connection", .int(connection))
            object.append("line", line.map { .int($0) } ?? .null)
            object.append("expected", expected ?? .null)
            object.append("got", got ?? .null)
            return .object(object)
        }
    }

    public struct Report: Sendable {
        public var connections = 0
        public var framesSent = 0
        public var framesExpected = 0
        public var framesMatched = 0
        public var differences: [Difference] = []
    }

    /// Reads a recording; `source` names it in errors (`line N` of it).
    public static func parse(_ text: String, source: String) throws(TruAPIError) -> [Entry] {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            guard !raw.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) else { continue }
            func failure(_ problem: String) -> TruAPIError { TruAPIError(.malformed, "\(source): line \(lineNumber): \(problem)") }
            let json: JSONValue
            do { json = try JSONValue.parse(String(raw), limits: JSONLimits(maxDepth: 200, maxBytes: 40 << 20)) } catch {
                throw failure(error.description)
            }
            guard let object = json.objectValue, let connection = json["connection"]?.int64Value.flatMap({ Int(exactly: $0) }),
                  let direction = json["direction"]?.stringValue.flatMap(TruAPITrace.Direction.init(rawValue:)) else {
                throw failure("expected a trace line with connection and direction (the --trace-frames format)")
            }
            if let version = json["protocol"]?.stringValue, version != TruAPITypes.protocolVersion {
                throw failure("recorded with protocol \(version); this omni speaks \(TruAPITypes.protocolVersion)")
            }
            var fields = JSONObject()
            for (key, value) in object where !["connection", "direction", "protocol"].contains(key) { fields.append(key, value) }
            var bytes: [UInt8]?
            if direction == .incoming {
                bytes = try frameBytes(json, failure)
            }
            entries.append(Entry(line: lineNumber, connection: connection, direction: direction, fields: fields, bytes: bytes))
        }
        return entries
    }

    private static func frameBytes(_ json: JSONValue, _ failure: (String) -> TruAPIError) throws(TruAPIError) -> [UInt8] {
        if json["frame_truncated"]?.boolValue == true { throw failure("the frame was recorded truncated; it cannot be replayed") }
        if let hex = json["frame_hex"]?.stringValue {
            guard let bytes = try? Hex.decode(hex, allowPrefix: true) else { throw failure("frame_hex is not hex") }
            return bytes
        }
        guard let requestID = json["request_id"]?.stringValue, let discriminant = json["discriminant"]?.int64Value,
              let wire = UInt8(exactly: discriminant) else {
            throw failure("a product frame needs request_id and discriminant, or frame_hex")
        }
        guard let hex = json["payload_hex"]?.stringValue else {
            throw failure(json["redacted"]?.boolValue == true ? "the frame was recorded redacted (it carried a secret); it cannot be replayed"
                                                             : "a product frame needs payload_hex")
        }
        guard let payload = try? Hex.decode(hex, allowPrefix: true) else { throw failure("payload_hex is not hex") }
        return TruAPIFrame(requestID: requestID, discriminant: wire, payload: payload).bytes
    }

    /// Replays `entries` against the bridge at `url`; each wait for recorded answers lasts at most `timeout` seconds.
    public static func run(_ entries: [Entry], url: String, timeout: Double) throws(TruAPIError) -> Report {
        var report = Report()
        var order: [Int] = []
        for entry in entries where !order.contains(entry.connection) { order.append(entry.connection) }
        for connection in order {
            report.connections += 1
            try replay(entries.filter { $0.connection == connection }, connection: connection, url: url, timeout: timeout, into: &report)
        }
        return report
    }

    private static func replay(_ entries: [Entry], connection: Int, url: String, timeout: Double, into report: inout Report) throws(TruAPIError) {
        enum Status { case pending, matched, differs(Int), gaveUp }
        let client = try TruAPIClient.connect(url, timeout: timeout, answerHostHandshakes: false)
        defer { client.close() }
        let expected = entries.filter { $0.direction == .outgoing }
        var status = [Status](repeating: .pending, count: expected.count)
        var received: [(fields: JSONObject, used: Bool)] = []
        func isPending(_ index: Int) -> Bool { if case .pending = status[index] { true } else { false } }

        /// Pairs a frame that came back with the first pending expected frame equal to it, or else with the first
        /// pending one of the same request id and wire id (the same answer, with other content).
        func settle(_ fields: JSONObject) {
            received.append((fields, true))
            if let slot = expected.indices.first(where: { isPending($0) && expected[$0].fields == fields }) {
                status[slot] = .matched
            } else if let slot = expected.indices.first(where: {
                isPending($0) && expected[$0].fields["request_id"] == fields["request_id"]
                    && expected[$0].fields["discriminant"] == fields["discriminant"]
            }) {
                status[slot] = .differs(received.count - 1)
            } else {
                received[received.count - 1].used = false
            }
        }
        /// Reads host frames until every frame recorded before `line` has come back (or came back different);
        /// what has not come within the timeout is given up, and not waited for again.
        func waitFor(before line: Int) throws(TruAPIError) {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while expected.indices.contains(where: { isPending($0) && expected[$0].line < line }) {
                guard let bytes = try client.receive(until: deadline) else {
                    for index in expected.indices where isPending(index) && expected[index].line < line { status[index] = .gaveUp }
                    return
                }
                settle(TruAPITrace.frameFields(bytes))
            }
        }
        for entry in entries where entry.direction == .incoming {
            try waitFor(before: entry.line)
            try client.send(entry.bytes ?? [])
            report.framesSent += 1
        }
        try waitFor(before: Int.max)

        report.framesExpected += expected.count
        for (index, entry) in expected.enumerated() {
            switch status[index] {
            case .matched, .pending:
                report.framesMatched += 1
            case .differs(let got):
                report.differences.append(Difference(kind: .changed, connection: connection, line: entry.line,
                                                     expected: .object(entry.fields), got: .object(received[got].fields)))
            case .gaveUp:
                report.differences.append(Difference(kind: .missing, connection: connection, line: entry.line,
                                                     expected: .object(entry.fields), got: nil))
            }
        }
        for extra in received where !extra.used {
            report.differences.append(Difference(kind: .unexpected, connection: connection, line: nil, expected: nil, got: .object(extra.fields)))
        }
    }
}

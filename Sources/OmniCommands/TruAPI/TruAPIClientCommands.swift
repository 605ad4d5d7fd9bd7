import FoundationEssentials
import OmniCLI
import OmniCodec
import OmniTruAPI

/// What `call`, `subscribe` and `replay` share: where the bridge is. Its URL carries the token, a secret, so it may
/// come from a file or the environment, and messages only ever show it with the token replaced by `…`.
enum TruAPIClientOptions {
    static let url = Option<String>("url", valueName: "URL", help: "The bridge's ws://…/?t=TOKEN URL (visible to other users in the process list).",
                                    environment: "OMNI_TRUAPI_URL", group: "Bridge")
    static let urlFile = Option<InputFile>("url-file", valueName: "FILE",
                                           help: "Read the URL from a file: the URL itself, or the bridge's --ready-file JSON.",
                                           group: "Bridge")
    static let timeout = DefaultedOption<Duration>("timeout", valueName: "DURATION", help: "How long to wait for the connection and the answer.",
                                                   default: .seconds(10), group: "Bridge")
    static let json = Option<String>("json", valueName: "JSON", help: "The request in the JSON mapping of 'omni help truapi-json' (literal, @FILE or -).",
                                     absentMeans: "null, for methods without arguments", source: .content)

    static var relations: [Relation] { [.conflicting(url, urlFile)] }

    /// The bridge URL from --url-file, --url or OMNI_TRUAPI_URL.
    static func bridgeURL(_ invocation: Invocation) throws -> String {
        if let file = try invocation.value(urlFile) {
            let text = try UTF8Validation.string(try invocation.readSecret(file, label: "--url-file", limit: 64 << 10))
                .trimmingWhitespaceAndNewlines()
            if text.hasPrefix("{") {
                guard let url = try JSONValue.parse(text)["url"]?.stringValue else {
                    throw TruAPIError(.malformed, "--url-file \(file.displayName): a JSON file needs a \"url\" string (as --ready-file writes)")
                }
                return url
            }
            return text
        }
        guard let url = try invocation.value(url) else {
            throw CLIError.usage("give the bridge's URL with --url-file FILE, OMNI_TRUAPI_URL or --url", commandPath: invocation.commandPath)
        }
        if invocation.isGiven(Self.url), url.contains("t=") {
            invocation.warn("the token in --url is visible in the process list; prefer --url-file or OMNI_TRUAPI_URL")
        }
        return url
    }

    /// The request payload of `method`'s `kind` from --json (null when absent).
    static func request(_ invocation: Invocation, method: TruAPIMethod, kind: TruAPIFrameKind, requestID: String) throws -> TruAPIMessage {
        let text = try invocation.text(of: json)
        let given = try text.map { try JSONValue.parse($0, limits: JSONLimits(maxDepth: 200, maxBytes: 24 << 20)) } ?? .null
        guard let type = TruAPIMessage.payloadType(method: method, kind: kind) else {
            guard given.isNull else { throw TruAPIError(.malformed, "--json: \(method.name) takes no arguments") }
            return TruAPIMessage(requestID: requestID, method: method, kind: kind, payload: nil)
        }
        let value: SCALEValue
        do { value = try TruAPITypes.codec.value(fromJSON: given, as: type, root: "$") } catch {
            throw TruAPIError(.malformed, "--json: \(error.description)")
        }
        return TruAPIMessage(requestID: requestID, method: method, kind: kind, payload: value)
    }

    static func method(_ name: String, kind: TruAPIMethod.Kind, _ invocation: Invocation) throws -> TruAPIMethod {
        guard let method = TruAPIWireTable.method(named: name) else {
            let close = TruAPIWireTable.methods.map(\.name).filter { $0.contains(name) }.prefix(3)
            throw CLIError.usage("unknown method '\(name)'" + (close.isEmpty ? " (see 'omni truapi methods')" : "; did you mean \(close.joined(separator: ", "))?"),
                                 commandPath: invocation.commandPath)
        }
        guard method.kind == kind, method.direction == .productInitiated else {
            let other = method.kind == .request ? "call" : "subscribe"
            throw CLIError.usage("\(name) is a \(method.direction == .hostInitiated ? "host-initiated " : "")\(method.kind.rawValue); use 'omni truapi \(other)'",
                                 commandPath: invocation.commandPath)
        }
        return method
    }
}

/// The decoded answer of `omni truapi call`: the response payload in the JSON mapping.
struct TruAPIAnswer: Renderable {
    let json: JSONValue
    func text(style: TextStyle) -> String { json.serialized(pretty: true) }
}

enum TruAPICallCommand {
    static let methodName = Argument<String>("METHOD", help: "A request method (see 'omni truapi methods --kind request').",
                                             completion: .values(TruAPIWireTable.methods.filter { $0.kind == .request }.map(\.name)))

    static let command = Command(
        "call", abstract: "Send one request to a bridge and print the answer as JSON.",
        discussion: """
            Encodes --json at the method's request type, sends it as p:1, and prints the response payload: \
            {"Ok": …} or {"Err": …} in the mapping of 'omni help truapi-json'. Exit 0 on Ok, 1 on a Domain error \
            (the method's own refusal), 4 on a framework error (Unsupported, Denied, MalformedFrame, HostFailure), \
            5 when the bridge cannot be reached or does not answer in time, 6 when it refuses the token.
            """,
        options: [TruAPIClientOptions.json, TruAPIClientOptions.url, TruAPIClientOptions.urlFile, TruAPIClientOptions.timeout],
        arguments: [methodName],
        relations: TruAPIClientOptions.relations,
        examples: [
            Example("omni truapi call system_handshake --json '{\"codec_version\":1}' --url-file ready.json", "Prints {\"Ok\":null}."),
            Example("omni truapi call local_storage_write --json '{\"key\":\"k\",\"value\":\"0x01\"}' --url-file ready.json --output json",
                    "Stores one byte under k in the product's local storage."),
            Example("omni truapi call account_get_account --json @request.json --url-file ready.json",
                    "Exits 1 with {\"Err\":{\"Domain\":\"NotConnected\"}}: the bridge has no session."),
        ]
    ) { invocation in
        let method = try TruAPIClientOptions.method(try invocation.value(methodName), kind: .request, invocation)
        let url = try TruAPIClientOptions.bridgeURL(invocation)
        let request = try TruAPIClientOptions.request(invocation, method: method, kind: .request, requestID: "p:1")
        let timeout = try invocation.value(TruAPIClientOptions.timeout).secondsValue
        let client = try TruAPIClient.connect(url, timeout: timeout)
        defer { client.close() }
        let response = try client.call(request, timeout: timeout)
        let json = try TruAPIJSON.payloadJSON(response)
        guard case .variant(_, .err(let error))? = response.payload else { return .output(TruAPIAnswer(json: json)) }
        let isDomain = TruAPICallError(value: error).map { if case .domain = $0 { true } else { false } } ?? false
        return .output(TruAPIAnswer(json: json), exitCode: isDomain ? .failure : .rejected)
    }
}

enum TruAPISubscribeCommand {
    static let methodName = Argument<String>("METHOD", help: "A subscription method (see 'omni truapi methods --kind subscription').",
                                             completion: .values(TruAPIWireTable.methods.filter { $0.kind == .subscription }.map(\.name)))
    static let count = Option<Int>("count", valueName: "N", help: "Stop after N items (then exit 0).", absentMeans: "until the stream ends")
    static let timeout = Option<Duration>("timeout", valueName: "DURATION", help: "Give up after this long (exit 5).",
                                          absentMeans: "wait until the stream ends or Ctrl-C", group: "Bridge")

    static let command = Command(
        "subscribe", abstract: "Start a subscription on a bridge and print its items as JSON lines.",
        discussion: """
            Sends the start as p:1 with --json as its arguments and prints each item the host sends. Exit 0 once \
            --count items arrived (the subscription is stopped first) or when the host ends the stream; a start the \
            host refuses ends in a typed interrupt: exit 1 for a Domain error, 4 for a framework error. --timeout \
            gives up with exit 5; Ctrl-C stops the subscription and exits 130.
            """,
        options: [TruAPIClientOptions.json, count, TruAPIClientOptions.url, TruAPIClientOptions.urlFile, timeout],
        arguments: [methodName],
        relations: TruAPIClientOptions.relations,
        examples: [
            Example("omni truapi subscribe theme_subscribe --count 1 --url-file ready.json --output jsonl", "Prints the current theme."),
            Example("omni truapi subscribe account_connection_status_subscribe --url-file ready.json --output jsonl",
                    "Prints \"Disconnected\", then every change until Ctrl-C."),
        ],
        streaming: .always
    ) { invocation in
        let method = try TruAPIClientOptions.method(try invocation.value(methodName), kind: .subscription, invocation)
        let url = try TruAPIClientOptions.bridgeURL(invocation)
        let start = try TruAPIClientOptions.request(invocation, method: method, kind: .start, requestID: "p:1")
        let wanted = try invocation.value(count)
        if let wanted, wanted < 1 { throw CLIError.usage("--count must be at least 1", commandPath: invocation.commandPath) }
        let limit = try invocation.value(timeout)
        let connectTimeout = limit.map { min($0.secondsValue, 30) } ?? 10
        let client = try TruAPIClient.connect(url, timeout: connectTimeout)
        let stop = TruAPIFrame(requestID: start.requestID, discriminant: method.stopID)
        invocation.interrupts.onInterrupt {
            try? client.send(stop.bytes)
            client.close()
        }
        defer { client.close() }
        try client.send(start)
        let deadline = limit.map { Date(timeIntervalSinceNow: $0.secondsValue) }
        var received = 0
        while true {
            if invocation.interrupts.isInterrupted { return .success }
            let next: [UInt8]?
            do { next = try client.receive(until: deadline) } catch {
                if invocation.interrupts.isInterrupted { return .success }
                throw error
            }
            guard let bytes = next else {
                try? client.send(stop.bytes)
                throw TruAPIError(.network, "\(method.name): \(received) items and no end within \(limit?.argumentText ?? "the timeout")")
            }
            guard let frame = try? TruAPIFrame.decode(bytes), frame.requestID == start.requestID else { continue }
            let message: TruAPIMessage
            do { message = try TruAPIMessage.decode(frame, frameBytes: bytes) } catch let error as CodecError {
                throw TruAPIError(.malformed, "the bridge sent an undecodable \(method.name) frame: \(error.description)")
            }
            switch message.kind {
            case .receive:
                guard let payload = message.payload, let type = TruAPIMessage.payloadType(method: method, kind: .receive) else { continue }
                invocation.emitItem(TruAPIAnswer(json: try TruAPITypes.codec.json(payload, as: type)))
                received += 1
                if let wanted, received >= wanted {
                    try client.send(stop.bytes)
                    return .success
                }
            case .interrupt:
                guard case .variant(_, let value)? = message.payload, let error = TruAPICallError(value: value) else { return .success }
                let detail = try TruAPIJSON.payloadJSON(message).serialized()
                if case .domain = error { throw TruAPIError(.domainError, "\(method.name) ended with \(error.name): \(detail)") }
                throw TruAPIError(.callError, "\(method.name) was refused: \(detail)")
            default:
                continue
            }
        }
    }
}

enum TruAPIReplayCommand {
    static let recording = Argument<InputFile>("FILE.jsonl", help: "A recording written by 'omni truapi bridge --trace-frames' (- for stdin).")
    static let timeout = DefaultedOption<Duration>("timeout", valueName: "DURATION",
                                                   help: "How long each recorded connection may take to give its answers.",
                                                   default: .seconds(10), group: "Bridge")

    static let command = Command(
        "replay", abstract: "Send a recording's product frames to a bridge and diff the answers (golden tests).",
        discussion: """
            Every recorded connection is replayed on a new connection, in order. Before each product frame is sent, \
            the host frames recorded before it must have arrived again, so the replay keeps the recording's order \
            of cause and effect; answers may come in another order, as the protocol allows. Frames are compared by \
            request id, wire id and the decoded (redacted) payload. Exit 0 when everything matched, 1 with the \
            differences (missing, unexpected or changed frames, each with the recording's line), 3 for a recording \
            that cannot be replayed (a frame that carried a secret was recorded redacted).
            """,
        options: [TruAPIClientOptions.url, TruAPIClientOptions.urlFile, timeout],
        arguments: [recording],
        relations: TruAPIClientOptions.relations,
        examples: [Example("omni truapi replay trace.jsonl --url-file ready.json", "Exit 0 when the bridge still answers as recorded.")]
    ) { invocation in
        let file = try invocation.value(recording)
        let entries = try TruAPIReplay.parse(try invocation.readText(file, label: "FILE.jsonl", limit: 256 << 20), source: file.displayName)
        guard entries.contains(where: { $0.direction == .incoming }) else {
            throw TruAPIError(.malformed, "\(file.displayName): no product frames to replay")
        }
        let report = try TruAPIReplay.run(entries, url: try TruAPIClientOptions.bridgeURL(invocation),
                                          timeout: try invocation.value(timeout).secondsValue)
        return .output(ReplayReport(report: report), exitCode: report.differences.isEmpty ? .ok : .failure)
    }
}

struct ReplayReport: Renderable {
    let report: TruAPIReplay.Report

    var json: JSONValue {
        .object(["matched": .bool(report.differences.isEmpty), "connections": .int(report.connections), "frames_sent": .int(report.framesSent),
                 "frames_expected": .int(report.framesExpected), "frames_matched": .int(report.framesMatched),
                 "differences": .array(report.differences.map(\.json))])
    }

    func text(style: TextStyle) -> String {
        var lines = ["\(report.framesMatched) of \(report.framesExpected) recorded answers matched over \(report.connections) connection(s); "
                     + "\(report.framesSent) frames sent"]
        for difference in report.differences {
            let place = difference.line.map { "line \($0)" } ?? "connection \(difference.connection)"
            switch difference.kind {
            case .missing: lines.append(style.bad("- \(place): expected ") + (difference.expected?.serialized() ?? ""))
            case .unexpected: lines.append(style.bad("+ \(place): unexpected ") + (difference.got?.serialized() ?? ""))
            case .changed:
                lines.append(style.bad("~ \(place): expected ") + (difference.expected?.serialized() ?? ""))
                lines.append(style.bad("  got ") + (difference.got?.serialized() ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}

import OmniCodec

/// One TrUAPI frame (reference §3): `requestId discriminant payload`, where the request id is a SCALE str, the
/// discriminant a u8 wire id and the payload every byte after it (no length prefix). One frame per WebSocket binary
/// message.
public struct TruAPIFrame: Sendable, Equatable {
    /// Frames (and payloads) larger than this are refused, as the reference bridge refuses them.
    public static let maximumBytes = 8 << 20

    public var requestID: String
    public var discriminant: UInt8
    public var payload: [UInt8]
    /// Where the payload starts in the frame's bytes (so payload errors can name frame offsets).
    public let payloadOffset: Int

    public init(requestID: String, discriminant: UInt8, payload: [UInt8] = []) {
        self.requestID = requestID
        self.discriminant = discriminant
        self.payload = payload
        payloadOffset = Self.headerLength(requestID)
    }

    private init(requestID: String, discriminant: UInt8, payload: [UInt8], payloadOffset: Int) {
        self.requestID = requestID
        self.discriminant = discriminant
        self.payload = payload
        self.payloadOffset = payloadOffset
    }

    /// Reads the envelope. An empty buffer, a missing discriminant, a request id past the end, invalid UTF-8 in
    /// the id or more than 8 MiB are errors (the host drops such a frame; the TS client would close the transport).
    public static func decode(_ bytes: [UInt8]) throws(CodecError) -> TruAPIFrame {
        guard bytes.count <= maximumBytes else {
            throw CodecError(.limitExceeded, format: "TrUAPI frame", "frame of \(bytes.count) bytes exceeds 8 MiB", offset: 0)
        }
        guard !bytes.isEmpty else { throw CodecError(.malformed, format: "TrUAPI frame", "empty frame", offset: 0) }
        var reader = SCALEReader(bytes)
        reader.push(".request_id")
        let requestID = try reader.string()
        reader.pop()
        guard !reader.isAtEnd else {
            throw CodecError(.malformed, format: "TrUAPI frame", "frame ends before the discriminant", offset: reader.position)
        }
        let discriminant = try reader.u8()
        let offset = reader.position
        return TruAPIFrame(requestID: requestID, discriminant: discriminant, payload: reader.rest(), payloadOffset: offset)
    }

    /// The frame's bytes. The request id's length is a compact in one of the three short modes (the TS decoder
    /// refuses the big-integer mode; an id of 2^30 bytes could not be sent within the 8 MiB limit anyway).
    public var bytes: [UInt8] {
        var writer = SCALEWriter(capacity: payload.count + requestID.utf8.count + 6)
        writer.string(requestID)
        writer.u8(discriminant)
        writer.raw(payload)
        return writer.bytes
    }

    /// The method and frame kind of the discriminant; nil for an unused id.
    public var wireEntry: (method: TruAPIMethod, kind: TruAPIFrameKind)? { TruAPIWireTable.lookup(discriminant) }

    /// Frames of host-initiated exchanges carry ids `h:N`.
    public var isHostInitiatedID: Bool { requestID.hasPrefix("h:") }

    private static func headerLength(_ requestID: String) -> Int {
        var writer = SCALEWriter()
        writer.compact(UInt128(requestID.utf8.count))
        return writer.bytes.count + requestID.utf8.count + 1
    }
}

/// A framework error (reference §3.2): `CallError<D> = enum { Domain(D) | Denied | Unsupported |
/// MalformedFrame{reason} | HostFailure{reason} }`, where D is the method's versioned error envelope.
public enum TruAPICallError: Error, Sendable, Equatable {
    /// The method's own error, as the value of its versioned error envelope (`.variant("V1", error)`).
    case domain(SCALEValue)
    /// The connection's execution kind may not call the service.
    case denied
    /// The host deliberately does not offer the method.
    case unsupported
    /// The request payload did not decode.
    case malformedFrame(reason: String)
    /// A platform, storage or chain failure; products treat it as transient.
    case hostFailure(reason: String)

    /// A Domain error of the current envelope version (V1).
    public static func domainV1(_ error: SCALEValue) -> TruAPICallError { .domain(.variant("V1", error)) }

    /// A Domain error `Unknown { reason }` — the most common typed refusal.
    public static func domainUnknown(_ reason: String) -> TruAPICallError {
        .domainV1(.variant("Unknown", .record(["reason": .string(reason)])))
    }

    /// The SCALE type of `CallError<errorEnvelope>`.
    public static func type(errorEnvelope: String?) -> SCALEType {
        // A method without an error type still has a CallError; its Domain case then carries GenericError.
        let domain = errorEnvelope.map(SCALEType.named) ?? .versioned([SCALEVariant(0, "V1", .tuple([.named("v01::GenericError")]))])
        return .enumeration([
            SCALEVariant(0, "Domain", .tuple([domain])),
            SCALEVariant(1, "Denied"),
            SCALEVariant(2, "Unsupported"),
            SCALEVariant(3, "MalformedFrame", .fields([SCALEField("reason", .string)])),
            SCALEVariant(4, "HostFailure", .fields([SCALEField("reason", .string)])),
        ])
    }

    public var value: SCALEValue {
        switch self {
        case .domain(let error): .variant("Domain", error)
        case .denied: .unitVariant("Denied")
        case .unsupported: .unitVariant("Unsupported")
        case .malformedFrame(let reason): .variant("MalformedFrame", .record(["reason": .string(reason)]))
        case .hostFailure(let reason): .variant("HostFailure", .record(["reason": .string(reason)]))
        }
    }

    public init?(value: SCALEValue) {
        switch value {
        case .variant("Domain", let error): self = .domain(error)
        case .variant("Denied", _): self = .denied
        case .variant("Unsupported", _): self = .unsupported
        case .variant("MalformedFrame", let fields): self = .malformedFrame(reason: fields["reason"]?.stringValue ?? "")
        case .variant("HostFailure", let fields): self = .hostFailure(reason: fields["reason"]?.stringValue ?? "")
        default: return nil
        }
    }

    /// The Domain error's name without its envelope (`NotConnected`, `Unknown`), or the framework case's name.
    public var name: String {
        switch self {
        case .domain(let envelope): envelope.variantPayload?.variantName ?? "Domain"
        case .denied: "Denied"
        case .unsupported: "Unsupported"
        case .malformedFrame: "MalformedFrame"
        case .hostFailure: "HostFailure"
        }
    }
}

/// A frame with its payload read at the method's types: the form the dispatcher, the host and the CLI work with.
///
/// `payload` is the whole payload as a value of `TruAPIMessage.payloadType(method:kind:)`, or nil for an empty
/// payload (a stop, an interrupt that just ends a stream, a start without arguments sent empty):
/// - request and start: the request envelope, `.variant("V1", request)`;
/// - response: `.variant("V1", .ok(body))` or `.variant("V1", .err(callError))` — the version is the request's, the
///   Ok body the unwrapped content of the Ok envelope's latest version (reference §3.2);
/// - receive: the item envelope, `.variant("V1", item)`;
/// - interrupt of a typed subscription: `.variant("V1", callError)` (no Result byte).
public struct TruAPIMessage: Sendable, Equatable {
    public var requestID: String
    public var method: TruAPIMethod
    public var kind: TruAPIFrameKind
    public var payload: SCALEValue?
    /// Bytes after a complete payload (tolerated on requests, as the reference tolerates them).
    public var trailingBytes: Int

    public init(requestID: String, method: TruAPIMethod, kind: TruAPIFrameKind, payload: SCALEValue?, trailingBytes: Int = 0) {
        self.requestID = requestID
        self.method = method
        self.kind = kind
        self.payload = payload
        self.trailingBytes = trailingBytes
    }

    public var discriminant: UInt8 { method.discriminant(of: kind)! }

    // MARK: - Types

    /// The SCALE type of a frame kind's payload; nil when the kind carries none (stop; interrupt of a plain
    /// subscription; the start of a method without arguments, whose bytes the host ignores).
    public static func payloadType(method: TruAPIMethod, kind: TruAPIFrameKind) -> SCALEType? {
        switch kind {
        case .request, .start:
            return method.requestType.map(SCALEType.named) ?? (kind == .start ? unitEnvelope : nil)
        case .stop:
            return nil
        case .receive:
            return method.itemType.map(SCALEType.named)
        case .response:
            let result = SCALEType.result(ok: okContentType(method), error: TruAPICallError.type(errorEnvelope: method.errorType))
            return .versioned(requestVersions(method).map { SCALEVariant($0.index, $0.name, .tuple([result])) })
        case .interrupt:
            guard let errorType = method.errorType else { return nil }
            let callError = TruAPICallError.type(errorEnvelope: errorType)
            return .versioned(requestVersions(method).map { SCALEVariant($0.index, $0.name, .tuple([callError])) })
        }
    }

    /// The versions of the method's request envelope (a response or typed interrupt answers in the request's).
    static func requestVersions(_ method: TruAPIMethod) -> [SCALEVariant] {
        if let requestType = method.requestType, case .versioned(let versions)? = TruAPITypes.codec.registry.resolve(.named(requestType)) {
            return versions
        }
        return [SCALEVariant(0, "V1")]
    }

    /// `versioned [0:V1()]`: what a start without arguments is when it is sent as `00` (the TS 0.9 client).
    static let unitEnvelope = SCALEType.versioned([SCALEVariant(0, "V1")])

    /// The content type of the latest version of the method's Ok envelope (unit when it has no payload).
    public static func okContentType(_ method: TruAPIMethod) -> SCALEType {
        guard let okType = method.okType, case .versioned(let versions)? = TruAPITypes.codec.registry.resolve(.named(okType)),
              let latest = versions.max(by: { $0.index < $1.index }) else { return .unit }
        return contentType(latest)
    }

    /// The type a versioned envelope's variant carries.
    static func contentType(_ variant: SCALEVariant) -> SCALEType {
        switch variant.payload {
        case .none: .unit
        case .tuple(let items) where items.count == 1: items[0]
        case .tuple(let items): items.isEmpty ? .unit : .tuple(items)
        case .fields(let fields): .structure(fields)
        }
    }

    // MARK: - Decoding

    /// Decodes a frame's envelope and payload. `strict` refuses trailing bytes after the payload (the CLI); the
    /// dispatcher tolerates them on requests, as the reference does. Errors carry frame offsets and `$.payload…`.
    public static func decode(_ bytes: [UInt8], strict: Bool = false) throws(CodecError) -> TruAPIMessage {
        try decode(TruAPIFrame.decode(bytes), frameBytes: bytes, strict: strict)
    }

    /// Decodes the payload of an already split frame (`frameBytes`, when given, makes offsets frame offsets).
    public static func decode(_ frame: TruAPIFrame, frameBytes: [UInt8]? = nil, strict: Bool = false) throws(CodecError) -> TruAPIMessage {
        guard let (method, kind) = frame.wireEntry else {
            throw CodecError(.malformed, format: "TrUAPI frame", "unknown discriminant \(frame.discriminant)",
                             offset: frame.payloadOffset - 1)
        }
        let bytes = frameBytes ?? frame.bytes
        let (payload, trailing) = try decodePayload(bytes, start: frame.payloadOffset, method: method, kind: kind, strict: strict)
        return TruAPIMessage(requestID: frame.requestID, method: method, kind: kind, payload: payload, trailingBytes: trailing)
    }

    /// Reads the payload that starts at `start` in `bytes` (0 for a bare payload).
    public static func decodePayload(_ bytes: [UInt8], start: Int = 0, method: TruAPIMethod, kind: TruAPIFrameKind,
                                     strict: Bool = false) throws(CodecError) -> (payload: SCALEValue?, trailingBytes: Int) {
        guard bytes.count - start <= TruAPIFrame.maximumBytes else {
            throw CodecError(.limitExceeded, format: "SCALE", "payload of \(bytes.count - start) bytes exceeds 8 MiB", offset: start)
        }
        let empty = start >= bytes.count
        guard let type = payloadType(method: method, kind: kind) else {
            if !empty, strict {
                throw CodecError(.malformed, format: "SCALE", "a \(kind.rawValue) of \(method.name) carries no payload, "
                                 + "got \(bytes.count - start) bytes", offset: start, path: "$.payload")
            }
            return (nil, empty ? 0 : bytes.count - start)
        }
        // An empty payload: a stream that ended (typed interrupt) or a start without arguments sent empty.
        if empty, kind == .interrupt || (kind == .start && method.requestType == nil) { return (nil, 0) }
        var reader = SCALEReader(bytes, start: start, limits: TruAPITypes.codec.limits)
        reader.push(".payload")
        let value = try TruAPITypes.codec.decode(type, from: &reader)
        if strict, !reader.isAtEnd {
            throw reader.error("\(reader.remaining) trailing bytes after the payload")
        }
        return (value, reader.remaining)
    }

    // MARK: - Encoding

    /// The payload's bytes; a payload that does not fit the method's types fails with its path.
    public func payloadBytes() throws(CodecError) -> [UInt8] {
        guard let payload else { return [] }
        guard let type = Self.payloadType(method: method, kind: kind) else {
            throw CodecError(.malformed, format: "SCALE", "a \(kind.rawValue) of \(method.name) carries no payload", path: "$.payload")
        }
        do {
            return try TruAPITypes.codec.encode(payload, as: type)
        } catch {
            throw CodecError(error.kind, format: error.format, error.message,
                             path: "$.payload" + (error.path.map { String($0.dropFirst()) } ?? ""))
        }
    }

    public func frame() throws(CodecError) -> TruAPIFrame {
        TruAPIFrame(requestID: requestID, discriminant: discriminant, payload: try payloadBytes())
    }

    // MARK: - Building answers

    /// The request's (or start's) version index, 0 when it has none.
    public var version: UInt8 {
        guard case .variant(let name, _)? = payload, let type = Self.payloadType(method: method, kind: kind),
              case .versioned(let versions)? = TruAPITypes.codec.registry.resolve(type),
              let variant = versions.first(where: { $0.name == name }) else { return 0 }
        return variant.index
    }

    /// The request's content: the V1 value (`.unit` for a method without arguments or an empty start).
    public var content: SCALEValue { payload?.variantPayload ?? .unit }

    /// A response to this request: Ok with `body` (the Ok envelope's content) or Err with `error`.
    public func response(_ answer: Result<SCALEValue, TruAPICallError>) -> TruAPIMessage {
        let name = Self.versionName(version)
        let value: SCALEValue = switch answer {
        case .success(let body): .variant(name, .ok(body))
        case .failure(let error): .variant(name, .err(error.value))
        }
        return TruAPIMessage(requestID: requestID, method: method, kind: .response, payload: value)
    }

    /// An item of this subscription (the item envelope's V1 content).
    public func item(_ content: SCALEValue) -> TruAPIMessage {
        TruAPIMessage(requestID: requestID, method: method, kind: .receive, payload: .variant("V1", content))
    }

    /// The interrupt ending this subscription: empty, or carrying `error` when the subscription is typed.
    public func interrupt(_ error: TruAPICallError? = nil) -> TruAPIMessage {
        let payload = error.flatMap { method.isTypedSubscription ? SCALEValue.variant(Self.versionName(version), $0.value) : nil }
        return TruAPIMessage(requestID: requestID, method: method, kind: .interrupt, payload: payload)
    }

    static func versionName(_ index: UInt8) -> String { "V\(Int(index) + 1)" }
}

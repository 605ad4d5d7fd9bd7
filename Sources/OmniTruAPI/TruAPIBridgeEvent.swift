import OmniCodec

/// Something the bridge did or dropped, for its log: a stable `name` (the reference's lifecycle markers where it has
/// one: `connection_open`, `reject_unauthorized`, `connection_limit`, `text_frame_ignored`, `read_error`,
/// `send_error`, `connection_closed`, `shutdown`), its fields as JSON, and one line for people. Never carries the
/// token or a frame's secrets.
public struct TruAPIBridgeEvent: Sendable, Equatable {
    public let name: String
    public let fields: JSONObject
    public let summary: String

    public init(_ name: String, _ fields: [(String, JSONValue)] = [], summary: String) {
        self.name = name
        self.fields = JSONObject(fields)
        self.summary = summary
    }

    public subscript(field: String) -> JSONValue? { fields[field] }

    /// `{"event": name, …fields}`.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("event", .string(name))
        for (key, value) in fields { object.append(key, value) }
        return .object(object)
    }

    // MARK: - Connections

    static func connectionOpen(_ id: Int, remote: String, origin: String?) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("connection_open", [("connection", .int(id)), ("remote", .string(remote)), ("origin", origin.map(JSONValue.string) ?? .null)],
                          summary: "connection \(id) from \(remote)" + (origin.map { " (origin \($0))" } ?? ""))
    }

    static func connectionClosed(_ id: Int, reason: String, framesIn: Int, framesOut: Int) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("connection_closed", [("connection", .int(id)), ("reason", .string(reason)), ("frames_in", .int(framesIn)),
                                                ("frames_out", .int(framesOut))],
                          summary: "connection \(id) closed: \(reason) (\(framesIn) frames in, \(framesOut) out)")
    }

    /// A connection refused before the upgrade (`reject_unauthorized`, `reject_origin`, `connection_limit`, …).
    static func refused(_ name: String, remote: String, status: Int, reason: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent(name, [("remote", .string(remote)), ("status", .int(status)), ("reason", .string(reason))],
                          summary: "refused \(remote) (HTTP \(status)): \(reason)")
    }

    /// A browser-glue page served (never with its query: that has the token).
    static func pageServed(_ path: String, remote: String, product: String?) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("page_served", [("path", .string(path)), ("remote", .string(remote)), ("product", product.map(JSONValue.string) ?? .null)],
                          summary: "served \(path) to \(remote)" + (product.map { " for \($0)" } ?? ""))
    }

    static func connectionLimit(remote: String, limit: Int) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("connection_limit", [("remote", .string(remote)), ("limit", .int(limit))],
                          summary: "dropped a connection from \(remote): \(limit) connections are open")
    }

    static func textFrameIgnored(_ id: Int, bytes: Int) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("text_frame_ignored", [("connection", .int(id)), ("bytes", .int(bytes))],
                          summary: "connection \(id): ignored a text message of \(bytes) bytes (frames are binary)")
    }

    static func readError(_ id: Int, _ message: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("read_error", [("connection", .int(id)), ("message", .string(message))], summary: "connection \(id): \(message)")
    }

    static func sendError(_ id: Int, _ message: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("send_error", [("connection", .int(id)), ("message", .string(message))], summary: "connection \(id): \(message)")
    }

    static func queueFull(_ id: Int, frames: Int, bytes: Int) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("queue_full", [("connection", .int(id)), ("frames", .int(frames)), ("bytes", .int(bytes))],
                          summary: "connection \(id): the product does not read; \(frames) frames (\(bytes) bytes) queued, connection closed")
    }

    static func handshake(_ id: Int, result: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("handshake", [("connection", .int(id)), ("result", .string(result))], summary: "connection \(id): host handshake: \(result)")
    }

    /// What the dispatcher dropped or worked around.
    static func dispatch(_ id: Int, _ event: TruAPIDispatchEvent) -> TruAPIBridgeEvent {
        let connection: (String, JSONValue) = ("connection", .int(id))
        switch event {
        case .droppedUndecodable(let error, let byteCount):
            return TruAPIBridgeEvent("frame_dropped", [connection, ("reason", "undecodable"), ("bytes", .int(byteCount)),
                                                       ("error", .string(error.description))],
                                     summary: "connection \(id): dropped an undecodable frame of \(byteCount) bytes: \(error.description)")
        case .droppedUnknownDiscriminant(let discriminant, let requestID):
            return TruAPIBridgeEvent("frame_dropped", [connection, ("reason", "unknown_discriminant"), ("discriminant", .int(discriminant)),
                                                       ("request_id", .string(requestID))],
                                     summary: "connection \(id): dropped a frame with unused wire id \(discriminant)")
        case .droppedWrongDirection(let method, let kind, let requestID):
            return TruAPIBridgeEvent("frame_dropped", [connection, ("reason", "wrong_direction"), ("method", .string(method)),
                                                       ("kind", .string(kind.rawValue)), ("request_id", .string(requestID))],
                                     summary: "connection \(id): dropped a \(kind.rawValue) of \(method) (not a frame a product sends here)")
        case .malformedPayload(let method, let requestID, let error):
            return TruAPIBridgeEvent("malformed_payload", [connection, ("method", .string(method)), ("request_id", .string(requestID)),
                                                           ("error", .string(error.description))],
                                     summary: "connection \(id): \(method) \(requestID): payload does not decode, answered MalformedFrame: \(error.description)")
        case .unencodableAnswer(let method, let requestID, let error):
            return TruAPIBridgeEvent("unencodable_answer", [connection, ("method", .string(method)), ("request_id", .string(requestID)),
                                                            ("error", .string(error.description))],
                                     summary: "connection \(id): \(method) \(requestID): answer did not fit the types, sent HostFailure")
        case .replacedSubscription(let method, let requestID):
            return TruAPIBridgeEvent("subscription_replaced", [connection, ("method", .string(method)), ("request_id", .string(requestID))],
                                     summary: "connection \(id): \(method) \(requestID) started again; the old stream was replaced")
        case .ignoredStop(let method, let requestID):
            return TruAPIBridgeEvent("stop_ignored", [connection, ("method", .string(method)), ("request_id", .string(requestID))],
                                     summary: "connection \(id): ignored a stop of \(method) for \(requestID) (no live subscription)")
        }
    }

    static let shutdown = TruAPIBridgeEvent("shutdown", summary: "bridge closing")

    // MARK: - Host

    /// A permission or confirmation decided; `card` is the request without its contents (kind, product, account,
    /// payload size), never the payload.
    static func permission(_ subjects: [TruAPIPermissionSubject], granted: Bool, source: String, card: [String]? = nil) -> TruAPIBridgeEvent {
        var fields: [(String, JSONValue)] = [("subjects", .array(subjects.map { .string($0.key) })), ("granted", .bool(granted)),
                                             ("source", .string(source))]
        if let card { fields.append(("card", .array(card.map(JSONValue.string)))) }
        return TruAPIBridgeEvent("permission", fields,
                                 summary: "\(granted ? "granted" : "denied") \(subjects.map(\.description).joined(separator: ", ")) (\(source))"
                                     + (card.map { ": " + $0.joined(separator: "; ") } ?? ""))
    }

    public static func notification(_ notification: TruAPINotification) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("notification", [("id", .int(notification.id)), ("text", .string(notification.text)),
                                           ("deeplink", notification.deeplink.map(JSONValue.string) ?? .null),
                                           ("scheduled_at", notification.scheduledAt.map { .string(String($0)) } ?? .null)],
                          summary: "notification \(notification.id): \(notification.text)" + (notification.deeplink.map { " → \($0)" } ?? ""))
    }

    static func notificationScheduled(_ notification: TruAPINotification) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("notification_scheduled", [("id", .int(notification.id)),
                                                     ("scheduled_at", notification.scheduledAt.map { .string(String($0)) } ?? .null)],
                          summary: "notification \(notification.id) scheduled for \(notification.scheduledAt.map(String.init) ?? "now") ms")
    }

    static func notificationCancelled(_ id: UInt32, wasPending: Bool) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("notification_cancelled", [("id", .int(id)), ("was_pending", .bool(wasPending))],
                          summary: "notification \(id) cancelled" + (wasPending ? "" : " (none pending)"))
    }

    static func navigate(_ url: String, opened: Bool, problem: String?) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("navigate", [("url", .string(url)), ("opened", .bool(opened)), ("error", problem.map(JSONValue.string) ?? .null)],
                          summary: "navigate to \(url)" + (problem.map { ": \($0)" } ?? (opened ? " (opened)" : "")))
    }

    static func storageError(_ reason: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("storage_error", [("reason", .string(reason))], summary: reason)
    }

    static func preimage(_ key: [UInt8], outcome: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("preimage_lookup", [("key", .string("0x" + Hex.encode(key))), ("outcome", .string(outcome))],
                          summary: "preimage 0x\(Hex.encode(key.prefix(8)))…: \(outcome)")
    }

    static func accountMismatch(requested: String, product: TruAPIProductID, method: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("product_id_mismatch", [("method", .string(method)), ("requested", .string(requested)),
                                                  ("product_id", .string(product.value))],
                          summary: "\(method) names product \(requested), but this bridge serves \(product.value) (--product-id)")
    }

    // MARK: - Chains

    private static func chain(_ genesis: [UInt8]) -> (String, JSONValue) { ("genesis_hash", .string("0x" + Hex.encode(genesis))) }
    private static func short(_ genesis: [UInt8]) -> String { "0x" + Hex.encode(genesis.prefix(4)) + "…" }

    static func chainConnected(genesis: [UInt8], url: String, connection: Int, attempt: Int) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("chain_connected", [chain(genesis), ("url", .string(url)), ("connection", .int(connection)), ("attempt", .int(attempt))],
                          summary: "chain \(short(genesis)): connected to \(url)" + (connection > 1 ? " again (connection \(connection))" : ""))
    }

    static func chainDisconnected(genesis: [UInt8], url: String, reason: String, retryIn: Double) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("chain_disconnected", [chain(genesis), ("url", .string(url)), ("reason", .string(reason)),
                                                 ("retry_in_ms", .int(Int(retryIn * 1000)))],
                          summary: "chain \(short(genesis)): lost \(url) (\(reason)); reconnecting in \(Int(retryIn * 1000)) ms")
    }

    static func chainConnectFailed(genesis: [UInt8], url: String, attempt: Int, problem: String, retryIn: Double) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("chain_connect_failed", [chain(genesis), ("url", .string(url)), ("attempt", .int(attempt)), ("error", .string(problem)),
                                                   ("retry_in_ms", .int(Int(retryIn * 1000)))],
                          summary: "chain \(short(genesis)): cannot connect to \(url) (attempt \(attempt)): \(problem); next attempt in \(Int(retryIn * 1000)) ms")
    }

    static func chainMessageDropped(genesis: [UInt8], reason: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("chain_message_dropped", [chain(genesis), ("reason", .string(reason))],
                          summary: "chain \(short(genesis)): dropped a message from the node: \(reason)")
    }

    static func chainFollowEnded(genesis: [UInt8], connection: Int, requestID: String, reason: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("chain_follow_ended", [chain(genesis), ("connection", .int(connection)), ("request_id", .string(requestID)),
                                                 ("reason", .string(reason))],
                          summary: "connection \(connection): follow \(requestID) on chain \(short(genesis)) ended: \(reason)")
    }

    public static func themeChanged(_ theme: String) -> TruAPIBridgeEvent {
        TruAPIBridgeEvent("theme_changed", [("theme", .string(theme))], summary: "theme is now \(theme)")
    }
}

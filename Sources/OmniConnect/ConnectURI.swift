import OmniCodec
import OmniTransport
/// The deep link that hands a session to a wallet (or app):
///
/// - Gen B: `irohaconnect://connect?sid=…&network_id=…&app_pk=…&nonce=…&v=1&role=wallet&node=…&token=…&relay=…`
///   (scheme `iroha` is accepted too). Parsing follows the strict wallet rules: no unknown, duplicate or missing
///   fields, no path, user, port or fragment, at most 4096 bytes, canonical base64url, 32-byte token and relay
///   token, and the sid must be the one recomputed from network id, app key and nonce.
/// - Gen A: `iroha://connect?sid=…&chain_id=…&node=…&v=1&role=wallet&token=…` (node optional).
public struct ConnectURI: Hashable, Sendable {
    public static let maximumLength = 4096

    public var generation: ConnectGeneration
    public var scheme: String
    public var sid: [UInt8]
    public var role: ConnectRole
    public var token: String
    /// Torii's base URL (`http(s)://…`).
    public var node: String?
    public var constraints: ConnectConstraints
    /// Gen B only.
    public var appPublicKey: [UInt8]?
    public var nonce: [UInt8]?
    public var relayToken: String?

    public init(generation: ConnectGeneration, scheme: String? = nil, sid: [UInt8], role: ConnectRole, token: String,
                node: String?, constraints: ConnectConstraints, appPublicKey: [UInt8]? = nil, nonce: [UInt8]? = nil,
                relayToken: String? = nil) {
        self.generation = generation
        self.scheme = scheme ?? (generation == .genB ? "irohaconnect" : "iroha")
        self.sid = sid
        self.role = role
        self.token = token
        self.node = node
        self.constraints = constraints
        self.appPublicKey = appPublicKey
        self.nonce = nonce
        self.relayToken = relayToken
    }

    public var sidText: String { ConnectText.base64URL(sid) }

    // MARK: - Building

    /// The URI text, fields in the order Torii and the SDKs write them.
    public var text: String {
        var fields: [(String, String)] = [("sid", sidText)]
        switch constraints {
        case .network(let network): fields.append(("network_id", network.typedLiteral))
        case .chain(let chain): fields.append(("chain_id", chain))
        }
        if generation == .genB {
            if let appPublicKey { fields.append(("app_pk", ConnectText.base64URL(appPublicKey))) }
            if let nonce { fields.append(("nonce", ConnectText.base64URL(nonce))) }
            fields += [("v", "1"), ("role", role.description)]
            if let node { fields.append(("node", node)) }
            fields.append(("token", token))
            if let relayToken { fields.append(("relay", relayToken)) }
        } else {
            if let node { fields.append(("node", node)) }
            fields += [("v", "1"), ("role", role.description), ("token", token)]
        }
        return scheme + "://connect?" + fields.map { $0.0 + "=" + Self.percentEncode($0.1) }.joined(separator: "&")
    }

    // MARK: - Parsing

    public init(parsing text: String, generation: ConnectGeneration) throws(ConnectError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw ConnectError(.malformed, "URI is \(text.utf8.count) bytes; at most \(Self.maximumLength) are accepted")
        }
        guard let schemeEnd = text.firstRange(of: "://") else { throw ConnectError(.malformed, "URI has no scheme") }
        let scheme = String(text[..<schemeEnd.lowerBound])
        guard scheme == "irohaconnect" || scheme == "iroha" else {
            throw ConnectError(.malformed, "URI scheme must be irohaconnect or iroha, got '\(scheme)'")
        }
        guard !text.contains("#") else { throw ConnectError(.malformed, "URI must not have a fragment") }
        let rest = text[schemeEnd.upperBound...]
        guard let questionMark = rest.firstIndex(of: "?") else { throw ConnectError(.malformed, "URI has no query") }
        let authority = rest[..<questionMark]
        guard authority == "connect" else {
            if authority.contains("/") { throw ConnectError(.malformed, "URI must have no path after 'connect'") }
            if authority.contains("@") || authority.contains(":") { throw ConnectError(.malformed, "URI must not carry user info or a port") }
            throw ConnectError(.malformed, "URI host must be 'connect', got '\(authority)'")
        }
        var values: [String: String] = [:]
        for pair in rest[rest.index(after: questionMark)...].split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw ConnectError(.malformed, "URI query item '\(pair)' is not name=value") }
            let name = String(parts[0])
            guard values[name] == nil else { throw ConnectError(.malformed, "URI field '\(name)' appears twice") }
            values[name] = try Self.percentDecode(String(parts[1]), field: name)
        }
        let required: Set<String>
        let optional: Set<String>
        switch generation {
        case .genB:
            required = ["sid", "network_id", "app_pk", "nonce", "v", "role", "node", "token", "relay"]
            optional = []
        case .genA:
            required = ["sid", "chain_id", "v", "role", "token"]
            optional = ["node"]
        }
        if let unknown = values.keys.sorted().first(where: { !required.contains($0) && !optional.contains($0) }) {
            throw ConnectError(.malformed, "URI has unknown field '\(unknown)' for \(generation)")
        }
        if let missing = required.sorted().first(where: { values[$0] == nil }) {
            throw ConnectError(.malformed, "URI lacks the '\(missing)' field")
        }
        func value(_ name: String) -> String { values[name] ?? "" }
        guard value("v") == "1" else { throw ConnectError(.malformed, "URI version v=\(value("v")) is not supported (only 1)") }
        switch value("role") {
        case "wallet": role = .wallet
        case "app": role = .app
        default: throw ConnectError(.malformed, "URI role must be wallet or app, got '\(value("role"))'")
        }
        sid = try ConnectText.parseBase64URL(value("sid"), byteCount: 32, what: "URI sid")
        token = value("token")
        guard !token.isEmpty else { throw ConnectError(.malformed, "URI token is empty") }
        if let node = values["node"] { try Self.checkNode(node) }
        self.generation = generation
        self.scheme = scheme
        node = values["node"]
        switch generation {
        case .genB:
            let network = try ConnectNetworkID(parsing: value("network_id"))
            constraints = .network(network)
            let appPublicKey = try ConnectText.parseBase64URL(value("app_pk"), byteCount: 32, what: "URI app_pk")
            let nonce = try ConnectText.parseBase64URL(value("nonce"), byteCount: 16, what: "URI nonce")
            _ = try ConnectText.parseBase64URL(token, byteCount: 32, what: "URI token")
            relayToken = value("relay")
            _ = try ConnectText.parseBase64URL(value("relay"), byteCount: 32, what: "URI relay token")
            self.appPublicKey = appPublicKey
            self.nonce = nonce
            let expected = ConnectCrypto.sid(generation: .genB, constraints: constraints, appPublicKey: appPublicKey, nonce: nonce)
            guard expected == sid else {
                throw ConnectError(.malformed, "URI sid does not match network_id, app_pk and nonce (expected \(ConnectText.base64URL(expected)))")
            }
        case .genA:
            constraints = .chain(value("chain_id"))
            appPublicKey = nil
            nonce = nil
            relayToken = nil
        }
    }

    // MARK: - Endpoints

    /// `ws(s)://…/v1/connect/ws?sid=…&role=…` on the URI's node.
    public func webSocketURL() throws(ConnectError) -> String {
        guard let node else { throw ConnectError(.configuration, "the URI names no node; give --node") }
        return try Self.webSocketURL(node: node, sid: sid, role: role)
    }

    public static func webSocketURL(node: String, sid: [UInt8], role: ConnectRole) throws(ConnectError) -> String {
        try checkNode(node)
        var base = node
        while base.hasSuffix("/") { base.removeLast() }
        let socketBase = base.hasPrefix("https://") ? "wss://" + base.dropFirst(8) : "ws://" + base.dropFirst(7)
        return socketBase + "/v1/connect/ws?sid=" + ConnectText.base64URL(sid) + "&role=" + role.description
    }

    /// The `Sec-WebSocket-Protocol` form of a token: `iroha-connect.token.v1.` ‖ base64url(UTF-8 of the token).
    public static func tokenSubprotocol(_ token: String) -> String {
        subprotocolPrefix + ConnectText.base64URL(Array(token.utf8))
    }

    public static let subprotocolPrefix = "iroha-connect.token.v1."

    static func checkNode(_ node: String) throws(ConnectError) {
        guard node.hasPrefix("http://") || node.hasPrefix("https://") else {
            throw ConnectError(.malformed, "node '\(node)' must be an http:// or https:// URL")
        }
        guard !node.contains("?"), !node.contains("#"), !node.contains(" ") else {
            throw ConnectError(.malformed, "node '\(node)' must not carry a query, fragment or spaces")
        }
    }

    // MARK: - Percent encoding

    static func percentEncode(_ text: String) -> String { PercentEncoding.encode(text) }

    static func percentDecode(_ text: String, field: String) throws(ConnectError) -> String {
        guard let bytes = PercentEncoding.decodeBytes(text) else { throw ConnectError(.malformed, "URI field '\(field)' has a broken %-escape") }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw ConnectError(.malformed, "URI field '\(field)' is not UTF-8 after %-decoding")
        }
        return decoded
    }
}

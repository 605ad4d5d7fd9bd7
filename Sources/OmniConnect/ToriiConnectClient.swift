import OmniCodec
import OmniTransport

/// How a client presents its token when joining the WebSocket.
public enum ConnectTokenTransport: String, Sendable, CaseIterable {
    /// `Authorization: Bearer <token>`.
    case header
    /// `Sec-WebSocket-Protocol: iroha-connect.token.v1.<base64url(token)>` (what browsers must use).
    case subprotocol
    /// Both, with the same token.
    case both
}

/// A session as Torii registered it.
public struct ConnectRegistration: Sendable {
    public let generation: ConnectGeneration
    public let sid: [UInt8]
    public let constraints: ConnectConstraints
    public let appPublicKey: [UInt8]
    public let nonce: [UInt8]
    public let walletURI: String
    public let appURI: String?
    public let tokenApp: String
    public let tokenWallet: String
    /// Gen B only.
    public let tokenManagement: String?
    public let tokenRelay: String?
    /// The response as received.
    public let response: JSONValue
}

/// Torii's Connect HTTP API and WebSocket join, on omni's HTTP and WebSocket clients.
public struct ToriiConnectClient: Sendable {
    public let node: String
    public let generation: ConnectGeneration
    public let http: HTTPClient
    public var timeout: Duration = .seconds(30)

    public init(node: String, generation: ConnectGeneration, http: HTTPClient) throws(ConnectError) {
        try ConnectURI.checkNode(node)
        var base = node
        while base.hasSuffix("/") { base.removeLast() }
        self.node = base
        self.generation = generation
        self.http = http
    }

    // MARK: - POST /v1/connect/session

    /// Registers a session and checks that Torii echoed exactly the identity sent (a node substituting another
    /// sid, network, key or nonce is refused). `advertisedNode` goes into the wallet URI (default: this node).
    public func createSession(
        constraints: ConnectConstraints, appPublicKey: [UInt8], nonce: [UInt8], advertisedNode: String? = nil
    ) throws -> ConnectRegistration {
        let sid = ConnectCrypto.sid(generation: generation, constraints: constraints, appPublicKey: appPublicKey, nonce: nonce)
        var body = JSONObject()
        body["sid"] = .string(ConnectText.base64URL(sid))
        if generation == .genB {
            guard case .network(let network) = constraints else {
                throw ConnectError(.configuration, "Gen B sessions bind a network id (--network-id)")
            }
            body["network_id"] = .string(network.typedLiteral)
            body["app_pk"] = .string(ConnectText.base64URL(appPublicKey))
            body["nonce"] = .string(ConnectText.base64URL(nonce))
        }
        body["node"] = .string(advertisedNode ?? node)
        let response = try send("POST", "/v1/connect/session", body: JSONValue.object(body).serialized())
        let json: JSONValue
        do {
            json = try JSONValue.parse(response.body, limits: JSONLimits(maxDepth: 8, maxBytes: 64 << 10))
        } catch {
            throw ConnectError(.remote, "POST /v1/connect/session: the response is not JSON (\(error.description))")
        }
        func field(_ name: String) throws(ConnectError) -> String {
            guard let value = json[name]?.stringValue, !value.isEmpty else {
                throw ConnectError(.remote, "POST /v1/connect/session: the response lacks '\(name)'")
            }
            return value
        }
        guard try field("sid") == ConnectText.base64URL(sid) else {
            throw ConnectError(.remote, "the node answered for another sid (\(try field("sid"))); refusing the substitution")
        }
        let walletURI = try field("wallet_uri")
        var tokenManagement: String?
        var tokenRelay: String?
        if generation == .genB {
            let echoedNetwork = try ConnectNetworkID(parsing: try field("network_id"))
            guard case .network(let network) = constraints, echoedNetwork == network else {
                throw ConnectError(.remote, "the node echoed network id \(echoedNetwork) instead of the one sent; refusing the substitution")
            }
            guard try ConnectText.parseBase64URL(try field("app_pk"), byteCount: 32, what: "echoed app_pk") == appPublicKey,
                  try ConnectText.parseBase64URL(try field("nonce"), byteCount: 16, what: "echoed nonce") == nonce else {
                throw ConnectError(.remote, "the node echoed another app key or nonce; refusing the substitution")
            }
            tokenManagement = try field("token_management")
            tokenRelay = try field("token_relay")
        }
        let uri = try ConnectURI(parsing: walletURI, generation: generation)
        guard uri.sid == sid, uri.role == .wallet else {
            throw ConnectError(.remote, "the node's wallet_uri is for another sid or role")
        }
        return ConnectRegistration(
            generation: generation, sid: sid, constraints: constraints, appPublicKey: appPublicKey, nonce: nonce,
            walletURI: walletURI, appURI: json["app_uri"]?.stringValue, tokenApp: try field("token_app"),
            tokenWallet: try field("token_wallet"), tokenManagement: tokenManagement, tokenRelay: tokenRelay, response: json)
    }

    // MARK: - DELETE and status

    /// Deletes a session. Returns false when the node no longer knows it (404 — already gone).
    @discardableResult
    public func deleteSession(sid: [UInt8], managementToken: String?) throws -> Bool {
        let response = try send("DELETE", "/v1/connect/session/" + ConnectText.base64URL(sid), bearer: managementToken, allowNotFound: true)
        return response.status != 404
    }

    /// Per-session status (Gen B, management token) or the node's aggregate status (Gen A).
    public func status(sid: [UInt8]?, managementToken: String?) throws -> JSONValue {
        var path = "/v1/connect/status"
        if let sid { path += "?sid=" + ConnectText.base64URL(sid) }
        let response = try send("GET", path, bearer: managementToken)
        do {
            return try JSONValue.parse(response.body, limits: JSONLimits(maxDepth: 16, maxBytes: 1 << 20))
        } catch {
            throw ConnectError(.remote, "GET \(path): the response is not JSON (\(error.description))")
        }
    }

    // MARK: - WebSocket

    /// Joins the session's WebSocket as `role`, presenting `token` as a Bearer header and/or subprotocol.
    public func join(sid: [UInt8], role: ConnectRole, token: String, transport: ConnectTokenTransport = .header,
                     connectTimeout: Double = 10) throws -> WebSocketConnection {
        try Self.join(url: try ConnectURI.webSocketURL(node: node, sid: sid, role: role), role: role, token: token, transport: transport,
                      connectTimeout: connectTimeout)
    }

    public static func join(url: String, role: ConnectRole, token: String, transport: ConnectTokenTransport,
                            connectTimeout: Double = 10) throws -> WebSocketConnection {
        var configuration = WebSocketClient.Configuration()
        configuration.connectTimeout = connectTimeout
        configuration.options.maxMessageBytes = ConnectCodec.defaultMaxFrameBytes
        let subprotocol = ConnectURI.tokenSubprotocol(token)
        if transport != .subprotocol { configuration.headers.add("Authorization", "Bearer " + token) }
        if transport != .header { configuration.subprotocols = [subprotocol] }
        let connection: WebSocketConnection
        do {
            connection = try WebSocketClient.connect(url, configuration: configuration)
        } catch {
            guard error.kind == .rejected else { throw error }
            let status = error.status ?? 0
            let kind: ConnectError.Kind = status == 401 || status == 403 ? .unauthorized : .remote
            throw ConnectError(kind, "the node refused the \(role) connection: \(error.message)", code: status)
        }
        if transport != .header, connection.subprotocol != subprotocol {
            _ = try? connection.close(code: .policyViolation, reason: "token subprotocol not echoed")
            throw ConnectError(.unauthorized, "the node did not confirm the token subprotocol; refusing the connection")
        }
        return connection
    }

    // MARK: - HTTP

    private func send(_ method: String, _ path: String, body: String? = nil, bearer: String? = nil,
                      allowNotFound: Bool = false) throws -> HTTPResponse {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if body != nil { headers.append(name: "Content-Type", value: "application/json") }
        if let bearer { headers.append(name: "Authorization", value: "Bearer " + bearer) }
        let request = HTTPRequest(method: method, url: node + path, headers: headers, body: body.map { Array($0.utf8) },
                                  totalTimeout: timeout, maxResponseBytes: 1 << 20, maxRedirects: 0)
        let response = try http.perform(request)
        if (200..<300).contains(response.status) || (allowNotFound && response.status == 404) { return response }
        let detail = Self.describe(response.body)
        let kind: ConnectError.Kind = response.status == 401 || response.status == 403 ? .unauthorized : .remote
        throw ConnectError(kind, "\(method) \(path) answered HTTP \(response.status)\(detail.isEmpty ? "" : ": " + detail)", code: response.status)
    }

    /// A refusal body for people: text as is, binary (Torii's Norito `ValidationFail`) as hex.
    static func describe(_ body: [UInt8]) -> String {
        let prefix = Array(body.prefix(512))
        if let text = String(validating: prefix, as: UTF8.self), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\n" || $0 == "\t" }) {
            return text.trimmingSpaces
        }
        return "(binary) " + ConnectText.hex(prefix)
    }
}

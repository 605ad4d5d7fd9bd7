import OmniCodec

/// The JSON description of frames and payloads that `omni connect frame decode` prints and `frame encode`
/// reads back: snake_case keys, bytes as lowercase hex, sids as base64url, 64-bit integers as strings.
public enum ConnectJSON {
    // MARK: - Frames

    public static func frame(_ frame: ConnectFrame) -> JSONValue {
        var object = JSONObject()
        object["sid"] = .string(ConnectText.base64URL(frame.sid))
        object["dir"] = .string(frame.direction.description)
        object["seq"] = .string(String(frame.sequence))
        switch frame.kind {
        case .control(let control):
            object["control"] = self.control(control)
        case .ciphertext(let ciphertext):
            object["ciphertext"] = .object(["dir": .string(ciphertext.direction.description), "aead": .string(ConnectText.hex(ciphertext.aead))])
        }
        return .object(object)
    }

    /// Reads a frame description. A ciphertext may be given as `ciphertext.aead`, or as a `payload` to seal
    /// with `keys`.
    public static func frame(from json: JSONValue, generation: ConnectGeneration, keys: ConnectDirectionKeys?) throws(ConnectError) -> ConnectFrame {
        let sid = try ConnectText.parseBytes(try string(json, "sid"), byteCount: 32, what: "sid")
        let direction = try self.direction(try string(json, "dir"))
        let sequence = try integer(json, "seq")
        if let control = json["control"] {
            return ConnectFrame(sid: sid, direction: direction, sequence: sequence, kind: .control(try self.control(from: control, generation: generation)))
        }
        if let ciphertext = json["ciphertext"], ciphertext["aead"] != nil {
            let inner = try ciphertext["dir"].map { value throws(ConnectError) in try self.direction(try string(value, nil)) } ?? direction
            let aead = try ConnectText.parseHex(try string(ciphertext, "aead"), what: "ciphertext.aead")
            return ConnectFrame(sid: sid, direction: direction, sequence: sequence, kind: .ciphertext(ConnectCiphertext(direction: inner, aead: aead)))
        }
        if let payload = json["payload"] {
            guard let keys else { throw ConnectError(.configuration, "sealing a payload needs --key") }
            return try ConnectCrypto.seal(try self.payload(from: payload, generation: generation), sid: sid, direction: direction, sequence: sequence,
                                          keys: keys, codec: ConnectCodec(generation: generation))
        }
        throw ConnectError(.malformed, "a frame needs 'control', 'ciphertext.aead' or 'payload'")
    }

    // MARK: - Controls

    public static func control(_ control: ConnectControl) -> JSONValue {
        switch control {
        case .open(let open):
            var object = JSONObject([("type", "open"), ("app_pk", .string(ConnectText.hex(open.appPublicKey)))])
            object["app_meta"] = open.appMetadata.map { meta in
                .object(["name": .string(meta.name), "url": meta.url.map { .string($0) } ?? .null, "icon_hash": meta.iconHash.map { .string($0) } ?? .null])
            } ?? .null
            switch open.constraints {
            case .network(let network): object["network_id"] = .string(network.typedLiteral)
            case .chain(let chain): object["chain_id"] = .string(chain)
            }
            object["permissions"] = open.permissions.map(permissions) ?? .null
            return .object(object)
        case .approve(let approve):
            var object = JSONObject([("type", "approve"), ("wallet_pk", .string(ConnectText.hex(approve.walletPublicKey))),
                                     ("account_id", .string(approve.accountID))])
            object["permissions"] = approve.permissions.map(permissions) ?? .null
            object["proof"] = approve.proof.map { proof in
                .object(["domain": .string(proof.domain), "uri": .string(proof.uri), "statement": .string(proof.statement),
                         "issued_at": .string(proof.issuedAt), "nonce": .string(proof.nonce)])
            } ?? .null
            object["algorithm"] = .string(approve.signature.algorithm.description)
            object["signature"] = .string(ConnectText.hex(approve.signature.bytes))
            return .object(object)
        case .reject(let reject):
            return .object(["type": "reject", "code": .int(Int(reject.code)), "code_id": .string(reject.codeID), "reason": .string(reject.reason)])
        case .close(let close):
            return closeJSON(close)
        case .ping(let nonce):
            return .object(["type": "ping", "nonce": .string(String(nonce))])
        case .pong(let nonce):
            return .object(["type": "pong", "nonce": .string(String(nonce))])
        case .serverEvent(.blockProofs(let height, let entryHash, let proofsJSON)):
            return .object(["type": "server_event", "event": "block_proofs", "height": .string(String(height)), "entry_hash": .string(entryHash),
                            "proofs_json": .string(proofsJSON)])
        }
    }

    public static func control(from json: JSONValue, generation: ConnectGeneration) throws(ConnectError) -> ConnectControl {
        switch try string(json, "type") {
        case "open":
            let constraints: ConnectConstraints
            if let network = json["network_id"]?.stringValue {
                constraints = .network(try ConnectNetworkID(parsing: network))
            } else {
                constraints = .chain(try string(json, "chain_id"))
            }
            var metadata: ConnectAppMetadata?
            if let meta = json["app_meta"], !meta.isNull {
                metadata = ConnectAppMetadata(name: try string(meta, "name"), url: meta["url"]?.stringValue, iconHash: meta["icon_hash"]?.stringValue)
            }
            return .open(ConnectOpen(appPublicKey: try bytes(json, "app_pk", count: 32), appMetadata: metadata, constraints: constraints,
                                     permissions: try permissions(from: json["permissions"])))
        case "approve":
            var proof: ConnectSignInProof?
            if let value = json["proof"], !value.isNull {
                proof = ConnectSignInProof(domain: try string(value, "domain"), uri: try string(value, "uri"), statement: try string(value, "statement"),
                                           issuedAt: try string(value, "issued_at"), nonce: try string(value, "nonce"))
            }
            return .approve(ConnectApprove(walletPublicKey: try bytes(json, "wallet_pk", count: 32), accountID: try string(json, "account_id"),
                                           permissions: try permissions(from: json["permissions"]), proof: proof,
                                           signature: try signature(json)))
        case "reject":
            return .reject(try reject(json))
        case "close":
            return .close(try close(json))
        case "ping":
            return .ping(nonce: try integer(json, "nonce"))
        case "pong":
            return .pong(nonce: try integer(json, "nonce"))
        case "server_event":
            return .serverEvent(.blockProofs(height: try integer(json, "height"), entryHash: try string(json, "entry_hash"),
                                             proofsJSON: try string(json, "proofs_json")))
        case let other:
            throw ConnectError(.malformed, "unknown control type '\(other)'")
        }
    }

    // MARK: - Payloads

    public static func payload(_ payload: ConnectPayload) -> JSONValue {
        switch payload {
        case .control(.close(let close)): closeJSON(close)
        case .control(.reject(let reject)):
            .object(["type": "reject", "code": .int(Int(reject.code)), "code_id": .string(reject.codeID), "reason": .string(reject.reason)])
        case .signRequestRaw(let domainTag, let bytes):
            .object(["type": "sign_request_raw", "domain_tag": .string(domainTag), "bytes": .string(ConnectText.hex(bytes))])
        case .signRequestTx(let txBytes):
            .object(["type": "sign_request_tx", "tx_bytes": .string(ConnectText.hex(txBytes))])
        case .signResultOk(let signature):
            .object(["type": "sign_result_ok", "algorithm": .string(signature.algorithm.description), "signature": .string(ConnectText.hex(signature.bytes))])
        case .signResultErr(let code, let message):
            .object(["type": "sign_result_err", "code": .string(code), "message": .string(message)])
        case .displayRequest(let title, let body):
            .object(["type": "display_request", "title": .string(title), "body": .string(body)])
        }
    }

    public static func payload(from json: JSONValue, generation: ConnectGeneration) throws(ConnectError) -> ConnectPayload {
        switch try string(json, "type") {
        case "close": return .control(.close(try close(json)))
        case "reject": return .control(.reject(try reject(json)))
        case "sign_request_raw": return .signRequestRaw(domainTag: try string(json, "domain_tag"), bytes: try bytes(json, "bytes", count: nil))
        case "sign_request_tx": return .signRequestTx(txBytes: try bytes(json, "tx_bytes", count: nil))
        case "sign_result_ok": return .signResultOk(try signature(json))
        case "sign_result_err": return .signResultErr(code: try string(json, "code"), message: try string(json, "message"))
        case "display_request": return .displayRequest(title: try string(json, "title"), body: try string(json, "body"))
        case let other: throw ConnectError(.malformed, "unknown payload type '\(other)'")
        }
    }

    // MARK: - Pieces

    private static func permissions(_ permissions: ConnectPermissions) -> JSONValue {
        .object(["methods": .array(permissions.methods.map { .string($0) }), "events": .array(permissions.events.map { .string($0) }),
                 "resources": permissions.resources.map { .array($0.map { .string($0) }) } ?? .null])
    }

    private static func permissions(from json: JSONValue?) throws(ConnectError) -> ConnectPermissions? {
        guard let json, !json.isNull else { return nil }
        var resources: [String]?
        if let value = json["resources"], !value.isNull { resources = try strings(value, "resources") }
        return ConnectPermissions(methods: try strings(json["methods"] ?? .array([]), "methods"), events: try strings(json["events"] ?? .array([]), "events"),
                                  resources: resources)
    }

    private static func closeJSON(_ close: ConnectClose) -> JSONValue {
        .object(["type": "close", "who": .string(close.who.description), "code": .int(Int(close.code)), "reason": .string(close.reason),
                 "retryable": .bool(close.retryable)])
    }

    private static func close(_ json: JSONValue) throws(ConnectError) -> ConnectClose {
        let who: ConnectRole
        switch try string(json, "who") {
        case "app": who = .app
        case "wallet": who = .wallet
        case let other: throw ConnectError(.malformed, "close.who must be app or wallet, got '\(other)'")
        }
        return ConnectClose(who: who, code: try code(json), reason: try string(json, "reason"), retryable: json["retryable"]?.boolValue ?? false)
    }

    private static func reject(_ json: JSONValue) throws(ConnectError) -> ConnectReject {
        ConnectReject(code: try code(json), codeID: try string(json, "code_id"), reason: try string(json, "reason"))
    }

    private static func signature(_ json: JSONValue) throws(ConnectError) -> ConnectWalletSignature {
        let name = json["algorithm"]?.stringValue ?? "ed25519"
        guard let algorithm = ConnectAlgorithm(name: name) else { throw ConnectError(.malformed, "unknown algorithm '\(name)'") }
        return ConnectWalletSignature(algorithm: algorithm, bytes: try bytes(json, "signature", count: nil))
    }

    private static func code(_ json: JSONValue) throws(ConnectError) -> UInt16 {
        let value = try integer(json, "code")
        guard value <= UInt64(UInt16.max) else { throw ConnectError(.malformed, "code \(value) does not fit in 16 bits") }
        return UInt16(value)
    }

    private static func direction(_ text: String) throws(ConnectError) -> ConnectDirection {
        switch text {
        case "app_to_wallet": .appToWallet
        case "wallet_to_app": .walletToApp
        default: throw ConnectError(.malformed, "dir must be app_to_wallet or wallet_to_app, got '\(text)'")
        }
    }

    private static func string(_ json: JSONValue, _ key: String?) throws(ConnectError) -> String {
        let value = key.map { json[$0] } ?? json
        guard let text = value?.stringValue else { throw ConnectError(.malformed, "'\(key ?? "value")' must be a string") }
        return text
    }

    private static func strings(_ json: JSONValue, _ key: String) throws(ConnectError) -> [String] {
        guard let items = json.arrayValue else { throw ConnectError(.malformed, "'\(key)' must be an array of strings") }
        var result: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw ConnectError(.malformed, "'\(key)' must be an array of strings") }
            result.append(text)
        }
        return result
    }

    /// A u64 given as a JSON number or a decimal string.
    private static func integer(_ json: JSONValue, _ key: String) throws(ConnectError) -> UInt64 {
        guard let text = json[key]?.stringValue ?? json[key]?.numberText, let value = UInt64(text) else {
            throw ConnectError(.malformed, "'\(key)' must be a non-negative 64-bit integer")
        }
        return value
    }

    private static func bytes(_ json: JSONValue, _ key: String, count: Int?) throws(ConnectError) -> [UInt8] {
        try ConnectText.parseHex(try string(json, key), byteCount: count, what: key)
    }
}

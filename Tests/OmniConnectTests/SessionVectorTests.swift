import Foundation
import OmniCodec
import OmniConnect
import OmniCrypto
import Testing

/// `derived/gen-{a,b}_session.json`: one deterministic session per generation, every intermediate and every
/// frame reproduced byte for byte (encoding from the inputs, decoding back, sealing and opening).
@Suite(.vectors("connect")) struct SessionVectorTests {
    static let files: [(String, ConnectGeneration)] = [("derived/gen-b_session.json", .genB), ("derived/gen-a_session.json", .genA)]

    struct Session {
        let file: VectorFile
        let generation: ConnectGeneration
        let codec: ConnectCodec
        let inputs: [String: Any]
        let derived: [String: Any]
        let appKey: X25519.PrivateKey
        let walletKey: X25519.PrivateKey
        let account: Ed25519.PrivateKey
        let constraints: ConnectConstraints
        let sid: [UInt8]

        init(_ path: String, _ generation: ConnectGeneration) throws {
            file = try VectorFile(path)
            self.generation = generation
            codec = ConnectCodec(generation: generation)
            inputs = try file.object("inputs")
            derived = try file.object("derived")
            appKey = try X25519.PrivateKey(rawRepresentation: try inputs.hex("app_x25519_sk_hex"))
            walletKey = try X25519.PrivateKey(rawRepresentation: try inputs.hex("wallet_x25519_sk_hex"))
            account = try Ed25519.PrivateKey(seed: try inputs.hex("account_ed25519_seed_hex"))
            constraints = generation == .genB
                ? .network(try ConnectNetworkID(bytes: try inputs.hex("network_id_hex")))
                : .chain(try inputs.string("chain_id"))
            sid = try derived.hex("sid_hex")
        }
    }

    @Test(arguments: files)
    func keyScheduleAndIdentity(path: String, generation: ConnectGeneration) throws {
        let session = try Session(path, generation)
        let derived = session.derived
        let nonce = try session.inputs.hex("nonce16_hex")
        #expect(hex(session.appKey.publicKey.rawRepresentation) == (try derived.string("app_pk_hex")))
        #expect(hex(session.walletKey.publicKey.rawRepresentation) == (try derived.string("wallet_pk_hex")))
        #expect(hex(session.generation.sidPreimage(constraints: session.constraints, appPublicKey: session.appKey.publicKey.rawRepresentation, nonce: nonce))
                == (try session.file.string("sid_preimage_hex")))
        let sid = ConnectCrypto.sid(generation: generation, constraints: session.constraints,
                                    appPublicKey: session.appKey.publicKey.rawRepresentation, nonce: nonce)
        #expect(hex(sid) == (try derived.string("sid_hex")))
        #expect(ConnectText.base64URL(sid) == (try derived.string("sid_base64url")))

        let appSide = try ConnectCrypto.keySchedule(privateKey: session.appKey, peerPublicKey: session.walletKey.publicKey.rawRepresentation, sid: sid)
        let walletSide = try ConnectCrypto.keySchedule(privateKey: session.walletKey, peerPublicKey: session.appKey.publicKey.rawRepresentation, sid: sid)
        #expect(appSide.keys == walletSide.keys)
        #expect(hex(appSide.rawSharedSecret) == (try derived.string("x25519_shared_raw_hex")))
        #expect(hex(appSide.sessionKey) == (try derived.string("session_key_hex")))
        #expect(hex(appSide.salt) == (try derived.string("direction_salt_hex")))
        #expect(hex(appSide.keys.appToWallet) == (try derived.string("k_app_hex")))
        #expect(hex(appSide.keys.walletToApp) == (try derived.string("k_wallet_hex")))
        #expect(hex(ConnectCrypto.associatedData(sid: sid, direction: .appToWallet, sequence: 2)) == (try derived.string("aad_app_to_wallet_seq2_hex")))
        #expect(ConnectCrypto.associatedData(sid: sid, direction: .appToWallet, sequence: 2).count == 52)
        #expect(hex(ConnectCrypto.aeadNonce(sequence: 2)) == (try derived.string("nonce_seq2_hex")))
        #expect(hex(generation.envelopeSchemaHash) == (try derived.string("envelope_schema_hash_hex")))
        #expect(hex(session.account.publicKey.rawRepresentation) == (try derived.string("account_ed25519_pk_hex")))
        if generation == .genB {
            let relayToken = try session.inputs.string("relay_token")
            #expect(hex(ConnectCrypto.relayAuthHash(sid: sid, relayToken: relayToken)) == (try derived.string("relay_auth_hash_hex")))
            #expect(hex(ConnectCrypto.constraintsHash(session.constraints, generation: .genB)) == (try derived.string("constraints_hash_hex")))
            let account = try IrohaAccountID(parsing: try session.inputs.string("account_id"))
            #expect(account.publicKey == session.account.publicKey.rawRepresentation)
        }
    }

    @Test(arguments: files)
    func approvalPreimageAndSignature(path: String, generation: ConnectGeneration) throws {
        let session = try Session(path, generation)
        let input = ConnectApprovalInput(
            sid: session.sid, appPublicKey: session.appKey.publicKey.rawRepresentation,
            walletPublicKey: session.walletKey.publicKey.rawRepresentation, accountID: try session.inputs.string("account_id"),
            constraints: session.constraints, permissions: nil, proof: nil,
            relayToken: generation == .genB ? try session.inputs.string("relay_token") : nil)
        let preimage = try generation.approvalPreimage(input)
        #expect(hex(preimage) == (try session.derived.string("approve_preimage_hex")))
        let signature = session.account.signature(for: preimage)
        #expect(hex(signature) == (try session.derived.string("approve_signature_hex")))
    }

    /// Each control frame: decode → fields; build from the inputs → the same bytes.
    @Test(arguments: files)
    func controlFrames(path: String, generation: ConnectGeneration) throws {
        let session = try Session(path, generation)
        let frames = try session.file.root["control_frames"].map { try VectorFile.array($0, "control_frames") } ?? []
        #expect(frames.count == 7)
        let appPK = session.appKey.publicKey.rawRepresentation
        for vector in frames {
            let name = try vector.string("name")
            let bytes = try vector.hex("frame_hex")
            let direction = try #require(ConnectDirection(rawValue: UInt32(try vector.int("dir"))))
            let control: ConnectControl
            switch name {
            case "open_minimal":
                control = .open(ConnectOpen(appPublicKey: appPK, constraints: session.constraints))
            case "open_with_meta_and_permissions":
                let meta = try vector.object("app_meta")
                let permissions = try vector.object("permissions")
                control = .open(ConnectOpen(
                    appPublicKey: appPK, appMetadata: ConnectAppMetadata(name: try meta.string("name"), url: try meta.string("url")),
                    constraints: session.constraints,
                    permissions: ConnectPermissions(methods: permissions["methods"] as? [String] ?? [],
                                                    events: permissions["events"] as? [String] ?? [], resources: nil)))
            case "approve":
                control = .approve(ConnectApprove(
                    walletPublicKey: session.walletKey.publicKey.rawRepresentation, accountID: try session.inputs.string("account_id"),
                    signature: ConnectWalletSignature(algorithm: .ed25519, bytes: try session.derived.hex("approve_signature_hex"))))
            case "reject_plaintext":
                control = .reject(ConnectReject(code: 401, codeID: "USER_DENIED", reason: "wallet rejected the session"))
            case "close_plaintext_app":
                control = .close(ConnectClose(who: .app, code: 1000, reason: "done", retryable: false))
            case "ping_app":
                control = .ping(nonce: 0x0102_0304_0506_0708)
            case "pong_wallet":
                control = .pong(nonce: 0x0102_0304_0506_0708)
            default:
                Issue.record("unexpected control vector \(name)")
                continue
            }
            let frame = ConnectFrame(sid: session.sid, direction: direction, sequence: UInt64(try vector.int("seq")), kind: .control(control))
            #expect(hex(session.codec.encode(frame)) == hex(bytes), "\(generation) \(name) encoding")
            #expect(try session.codec.decodeFrame(bytes) == frame, "\(generation) \(name) decoding")
        }
    }

    /// Each encrypted frame: payload → envelope plaintext → AEAD → frame, and back.
    @Test(arguments: files)
    func encryptedFrames(path: String, generation: ConnectGeneration) throws {
        let session = try Session(path, generation)
        let keys = try ConnectCrypto.keySchedule(privateKey: session.appKey, peerPublicKey: session.walletKey.publicKey.rawRepresentation,
                                                 sid: session.sid).keys
        let frames = try session.file.root["encrypted_frames"].map { try VectorFile.array($0, "encrypted_frames") } ?? []
        #expect(frames.count == 7)
        for vector in frames {
            let name = try vector.string("name")
            let direction = try #require(ConnectDirection(rawValue: UInt32(try vector.int("dir"))))
            let sequence = UInt64(try vector.int("seq"))
            let payload = try Self.payload(try vector.object("payload"))
            let envelope = ConnectEnvelope(sequence: sequence, payload: payload)
            #expect(hex(session.codec.encodeEnvelope(envelope)) == (try vector.string("envelope_plaintext_hex")), "\(generation) \(name) envelope")
            let frame = try ConnectCrypto.seal(payload, sid: session.sid, direction: direction, sequence: sequence, keys: keys, codec: session.codec)
            guard case .ciphertext(let ciphertext) = frame.kind else {
                Issue.record("sealed frame is not ciphertext")
                continue
            }
            #expect(hex(ciphertext.aead) == (try vector.string("aead_hex")), "\(generation) \(name) aead")
            let bytes = session.codec.encode(frame)
            #expect(hex(bytes) == (try vector.string("frame_hex")), "\(generation) \(name) frame")
            let decoded = try session.codec.decodeFrame(try vector.hex("frame_hex"))
            #expect(try ConnectCrypto.open(decoded, keys: keys, codec: session.codec) == envelope, "\(generation) \(name) open")
            #expect(try session.codec.decodeEnvelope(try vector.hex("envelope_plaintext_hex")) == envelope)
        }
    }

    static func payload(_ json: [String: Any]) throws -> ConnectPayload {
        if let raw = json["SignRequestRaw"] as? [String: Any] {
            return .signRequestRaw(domainTag: try raw.string("domain_tag"), bytes: try raw.hex("bytes_hex"))
        }
        if let tx = json["SignRequestTx"] as? [String: Any] {
            return .signRequestTx(txBytes: try tx.hex("tx_bytes_hex"))
        }
        if let ok = json["SignResultOk"] as? [String: Any] {
            let algorithm = try #require(ConnectAlgorithm(name: try ok.string("algorithm")))
            return .signResultOk(ConnectWalletSignature(algorithm: algorithm, bytes: try ok.hex("signature_hex")))
        }
        if let err = json["SignResultErr"] as? [String: Any] {
            return .signResultErr(code: try err.string("code"), message: try err.string("message"))
        }
        if let display = json["DisplayRequest"] as? [String: Any] {
            return .displayRequest(title: try display.string("title"), body: try display.string("body"))
        }
        let control = try json.object("Control")
        if let close = control["Close"] as? [String: Any] {
            let who: ConnectRole = try close.string("who") == "Wallet" ? .wallet : .app
            return .control(.close(ConnectClose(who: who, code: UInt16(try close.int("code")), reason: try close.string("reason"),
                                                retryable: try #require(close["retryable"] as? Bool))))
        }
        let reject = try control.object("Reject")
        return .control(.reject(ConnectReject(code: UInt16(try reject.int("code")), codeID: try reject.string("code_id"),
                                              reason: try reject.string("reason"))))
    }
}

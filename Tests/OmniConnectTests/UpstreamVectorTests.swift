import Foundation
import OmniCodec
import OmniConnect
import OmniCrypto
import OmniTestSupport
import Testing

/// Upstream vectors (`upstream/`) and the primitive checks (`primitives.json`).
@Suite(.vectors("connect")) struct UpstreamVectorTests {
    // MARK: - primitives.json

    @Test func primitives() throws {
        let file = try VectorFile("primitives.json")
        let crc = try file.object("crc64_xz")
        #expect(String(CRC64XZ.checksum(Array(try crc.string("input_ascii").utf8)), radix: 16) == (try crc.string("value_hex")))

        let fnv = try file.object("schema_hash_gen_a_fnv1a")
        for typeName in ["iroha_torii_shared::connect::EnvelopeV1", "iroha_torii_shared::connect::ConnectFrameV1"] {
            #expect(hex(NoritoSchemaHash.fnv1a(typeName: typeName)) == (try fnv.string(typeName)))
        }
        #expect(hex(ConnectGeneration.genA.envelopeSchemaHash) == (try fnv.string("iroha_torii_shared::connect::EnvelopeV1")))
        let sha = try file.object("schema_hash_gen_b_sha256")
        #expect(hex(ConnectGeneration.genB.envelopeSchemaHash) == (try sha.string("iroha_torii_shared::connect::EnvelopeV1")))

        let examples = try file.object("network_id_literal_crc16").array("examples")
        #expect(examples.count == 3)
        for example in examples {
            let network = try ConnectNetworkID(bytes: try example.hex("bytes_hex"))
            #expect(network.typedLiteral == (try example.string("literal")))
            #expect(try ConnectNetworkID(parsing: try example.string("literal")) == network)
        }
        let subprotocol = try file.object("ws_token_subprotocol")
        #expect(ConnectURI.tokenSubprotocol(try subprotocol.string("token")) == (try subprotocol.string("subprotocol")))
    }

    // MARK: - upstream/gen-b/session_vectors.json

    @Test func genBSessionVectors() throws {
        let file = try VectorFile("upstream/gen-b/session_vectors.json")
        let network = try ConnectNetworkID(bytes: try file.hex("network_id_hex"))
        let appPK = try file.hex("app_pk_hex")
        let nonce = try file.hex("nonce_hex")
        #expect(ConnectText.base64URL(appPK) == (try file.string("app_pk_base64url")))
        #expect(ConnectText.base64URL(nonce) == (try file.string("nonce_base64url")))
        let sid = ConnectCrypto.sid(generation: .genB, constraints: .network(network), appPublicKey: appPK, nonce: nonce)
        #expect(hex(sid) == (try file.string("sid_hex")))
        #expect(ConnectText.base64URL(sid) == (try file.string("sid_base64url")))
        #expect(try ConnectText.parseBase64URL(try file.string("sid_base64url"), byteCount: 32, what: "sid") == sid)

        let tokens = try file.object("tokens")
        let hashes = try file.object("token_hashes")
        for kind in [ConnectTokenKind.app, .wallet, .management] {
            #expect(hex(ConnectCrypto.tokenHash(kind: kind, sid: sid, token: try tokens.string(kind.rawValue))) == (try hashes.string(kind.rawValue)))
        }
        let relayToken = try tokens.string("relay")
        #expect(hex(try ConnectCrypto.relayMACKey(sid: sid, relayToken: relayToken)) == (try file.string("relay_mac_key_hex")))
        #expect(hex(ConnectCrypto.relayAuthHash(sid: sid, relayToken: relayToken)) == (try file.string("relay_auth_hash_hex")))

        let approval = try file.object("approval")
        #expect(hex(ConnectCrypto.constraintsHash(.network(network), generation: .genB)) == (try approval.string("constraints_hash_hex")))
        let account = try Ed25519.PrivateKey(seed: try approval.hex("account_private_key_seed_hex"))
        #expect(hex(account.publicKey.rawRepresentation) == (try approval.string("account_public_key_hex")))
        let accountID = try approval.string("account_id")
        let parsed = try IrohaAccountID(parsing: accountID)
        #expect(hex(parsed.publicKey) == (try approval.string("account_public_key_hex")))
        #expect(try IrohaAccountID(ed25519PublicKey: account.publicKey.rawRepresentation).literal == accountID)

        let walletPK = try approval.hex("wallet_pk_hex")
        #expect(ConnectText.base64URL(walletPK) == (try approval.string("wallet_pk_base64url")))
        let preimage = try ConnectGeneration.genB.approvalPreimage(ConnectApprovalInput(
            sid: sid, appPublicKey: appPK, walletPublicKey: walletPK, accountID: accountID, constraints: .network(network),
            permissions: nil, proof: nil, relayToken: relayToken))
        #expect(hex(preimage) == (try approval.string("approve_preimage_hex")))
        let signature = account.signature(for: preimage)
        #expect(hex(signature) == (try approval.string("signature_hex")))
        #expect(try ConnectCrypto.verify(ConnectWalletSignature(algorithm: .ed25519, bytes: signature), publicKey: parsed.publicKey, message: preimage))
    }

    // MARK: - upstream/gen-b/fearless_uranai_exchange.json

    @Test func fearlessWalletExchange() throws {
        let file = try VectorFile("upstream/gen-b/fearless_uranai_exchange.json")
        let codec = ConnectCodec(generation: .genB)
        let uriText = try file.string("wallet_uri")
        let uri = try ConnectURI(parsing: uriText, generation: .genB)
        #expect(uri.text == uriText, "URI rebuilds byte for byte")
        #expect(uri.role == .wallet)
        #expect(uri.node == "https://taira.sora.org")
        #expect(uri.constraints == .network(try ConnectNetworkID(parsing: try file.string("network_id_literal"))))
        #expect(hex(try ConnectNetworkID(parsing: try file.string("network_id_literal")).bytes) == (try file.string("network_id_hex")))
        #expect(try uri.webSocketURL() == (try file.string("expected_websocket_url")))
        #expect(ConnectURI.tokenSubprotocol(uri.token) == (try file.string("expected_websocket_subprotocol")))
        #expect(hex(uri.appPublicKey ?? []) == (try file.string("app_pk_hex")))

        let walletKey = try X25519.PrivateKey(rawRepresentation: try file.hex("wallet_x25519_sk_hex"))
        #expect(hex(walletKey.publicKey.rawRepresentation) == (try file.string("wallet_pk_hex")))
        let accountID = try file.string("account_id")
        #expect(hex(try IrohaAccountID(parsing: accountID).publicKey) == (try file.string("account_public_key_hex")))

        // Open, with and without metadata.
        let permissionsJSON = try file.object("permissions")
        let permissions = ConnectPermissions(methods: permissionsJSON["methods"] as? [String] ?? [], events: permissionsJSON["events"] as? [String] ?? [],
                                             resources: permissionsJSON["resources"] as? [String])
        for (key, metadata) in [("open_frame_hex", ConnectAppMetadata(name: "Uranai", url: "https://uranai.app")), ("open_frame_without_metadata_hex", nil)] {
            let bytes = try file.hex(key)
            let frame = try codec.decodeFrame(bytes)
            let expected = ConnectFrame(sid: uri.sid, direction: .appToWallet, sequence: 1, kind: .control(.open(ConnectOpen(
                appPublicKey: uri.appPublicKey ?? [], appMetadata: metadata, constraints: uri.constraints, permissions: permissions))))
            #expect(frame == expected, "\(key)")
            #expect(codec.encode(expected) == bytes, "\(key) re-encodes")
        }

        // Approval: preimage, the upstream signature verifies, the frame is byte-exact.
        let preimage = try ConnectGeneration.genB.approvalPreimage(ConnectApprovalInput(
            sid: uri.sid, appPublicKey: uri.appPublicKey ?? [], walletPublicKey: walletKey.publicKey.rawRepresentation, accountID: accountID,
            constraints: uri.constraints, permissions: permissions, proof: nil, relayToken: uri.relayToken))
        #expect(hex(preimage) == (try file.string("approval_preimage_hex")))
        let approvalSignature = ConnectWalletSignature(algorithm: .ed25519, bytes: try file.hex("approval_signature_hex"))
        #expect(try ConnectCrypto.verify(approvalSignature, publicKey: try file.hex("account_public_key_hex"), message: preimage))
        let approval = ConnectFrame(sid: uri.sid, direction: .walletToApp, sequence: 1, kind: .control(.approve(ConnectApprove(
            walletPublicKey: walletKey.publicKey.rawRepresentation, accountID: accountID, permissions: permissions, signature: approvalSignature))))
        #expect(hex(codec.encode(approval)) == (try file.string("approval_frame_hex")))

        // The request decrypts with the wallet's keys; the result seals byte-exactly.
        let keys = try ConnectCrypto.keySchedule(privateKey: walletKey, peerPublicKey: uri.appPublicKey ?? [], sid: uri.sid).keys
        let cross = try file.object("researcher_cross_check")
        #expect(hex(keys.appToWallet) == (try cross.string("k_app_hex")))
        #expect(hex(keys.walletToApp) == (try cross.string("k_wallet_hex")))
        let request = try ConnectCrypto.open(try codec.decodeFrame(try file.hex("request_frame_hex")), keys: keys, codec: codec)
        let expectedRequest = try file.object("request_expected")
        #expect(request.sequence == 2)
        #expect(request.payload == .signRequestRaw(domainTag: try expectedRequest.string("domain_tag"),
                                                   bytes: Array(try expectedRequest.string("bytes_utf8").utf8)))
        let signSignature = try file.hex("sign_signature_hex")
        #expect(try ConnectCrypto.verify(ConnectWalletSignature(algorithm: .ed25519, bytes: signSignature), publicKey: try file.hex("account_public_key_hex"),
                                         message: Array(try expectedRequest.string("bytes_utf8").utf8)))
        let result = try ConnectCrypto.seal(.signResultOk(ConnectWalletSignature(algorithm: .ed25519, bytes: signSignature)), sid: uri.sid,
                                            direction: .walletToApp, sequence: 2, keys: keys, codec: codec)
        #expect(hex(codec.encode(result)) == (try file.string("result_frame_hex")))

        // Ping and pong.
        for (key, direction, control) in [("ping_frame_hex", ConnectDirection.appToWallet, ConnectControl.ping(nonce: 0x0102_0304_0506_0708)),
                                          ("pong_frame_hex", .walletToApp, .pong(nonce: 0x0102_0304_0506_0708))] {
            let frame = ConnectFrame(sid: uri.sid, direction: direction, sequence: 2, kind: .control(control))
            #expect(hex(codec.encode(frame)) == (try file.string(key)))
            #expect(try codec.decodeFrame(try file.hex(key)) == frame)
        }
    }

    // MARK: - upstream/gen-a

    @Test func genAAndroidApproveFrame() throws {
        let hexText = try Vectors.text("connect/upstream/gen-a/android_approve_frame.hex").trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = try ConnectText.parseHex(hexText, what: "android frame")
        let expect = try VectorFile("upstream/gen-a/bridge_envelope_fixtures.json").object("android_approve_frame_expect")
        #expect(bytes.count == (try expect.int("total_len")))
        let codec = ConnectCodec(generation: .genA)
        let frame = try codec.decodeFrame(bytes)
        #expect(hex(frame.sid) == (try expect.string("sid_hex")))
        #expect(frame.direction == .walletToApp)
        #expect(frame.sequence == UInt64(try expect.int("seq")))
        guard case .approve(let approve) = frame.control else {
            Issue.record("not an Approve")
            return
        }
        #expect(hex(approve.walletPublicKey) == (try expect.string("wallet_pk_hex")))
        #expect(approve.accountID == (try expect.string("account_id")))
        #expect(approve.permissions == nil)
        #expect(approve.proof == nil)
        #expect(approve.signature.algorithm == .ed25519)
        #expect(hex(approve.signature.bytes) == (try expect.object("sig_wallet").string("signature_hex")))
        #expect(codec.encode(frame) == bytes, "re-encodes byte for byte")
        #expect(throws: CodecError.self) { try ConnectCodec(generation: .genB).decodeFrame(bytes) }
    }

    @Test func genABridgeEnvelopes() throws {
        let file = try VectorFile("upstream/gen-a/bridge_envelope_fixtures.json")
        let envelopes = try file.root["envelopes"].map { try VectorFile.array($0, "envelopes") } ?? []
        #expect(envelopes.count == 2)
        let codec = ConnectCodec(generation: .genA)
        for vector in envelopes {
            let bytes = try vector.hex("hex")
            let expect = try vector.object("expect")
            switch try vector.string("name") {
            case "live_sign_request_raw":
                #expect(hex(Array(bytes[6..<22])) == (try expect.string("schema_hash_hex")))
                #expect(hex(Array(bytes[31..<39])) == (try expect.string("crc64_xz_le_hex")))
                let envelope = try codec.decodeEnvelope(bytes)
                #expect(envelope.sequence == UInt64(try expect.int("seq")))
                guard case .signRequestRaw(let domainTag, let payload) = envelope.payload else {
                    Issue.record("not SignRequestRaw")
                    continue
                }
                #expect(domainTag == (try expect.string("domain_tag")))
                #expect(payload.count == (try expect.int("bytes_len")))
                #expect(codec.encodeEnvelope(envelope) == bytes)
            default:
                // The legacy Java schema hash is refused by a strict decoder, with the reason.
                #expect(Array(bytes[6..<22]) != ConnectGeneration.genA.envelopeSchemaHash)
                let error = try #require(throws: CodecError.self) { try codec.decodeEnvelope(bytes) }
                #expect(error.message.contains("schema hash"))
                #expect(error.offset == 6)
            }
        }
    }

    @Test func genAJavaScriptSID() throws {
        let file = try VectorFile("upstream/gen-a/js_sid_vector.json")
        let constraints = ConnectConstraints.chain(try file.string("chain_id"))
        let appPK = try file.hex("app_pk_hex")
        let nonce = try file.hex("nonce_hex")
        #expect(ConnectText.base64URL(ConnectCrypto.legacyTruncatedSID(constraints: constraints, appPublicKey: appPK, nonce: nonce))
                == (try file.string("sid_base64url_blake2b512_truncated_upstream")))
        #expect(ConnectText.base64URL(ConnectCrypto.sid(generation: .genA, constraints: constraints, appPublicKey: appPK, nonce: nonce))
                == (try file.string("sid_base64url_blake2b256_researcher")))
    }
}

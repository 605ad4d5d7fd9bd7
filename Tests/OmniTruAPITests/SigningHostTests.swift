import Foundation
import OmniCodec
import OmniCrypto
import OmniTestSupport
@testable import OmniTruAPI
import Testing

/// The signing host (reference §6 and §7) called directly: accounts and entropy against crypto.json, signatures
/// checked by verifying them, and every refusal — policy denial, a missing session, another product's account,
/// a prompt without a terminal — answering the reference's typed error at the step where the reference gives it.
@Suite("TrUAPI signing host", .timeLimit(.minutes(1)))
struct SigningHostTests {
    static let vectorEntropy = [UInt8](repeating: 0xab, count: 16)
    static let allowChainSubmit = #"{"remote": {"chain_submit": "allow"}}"#

    struct Fixture {
        let events = BridgeEventLog()
        let context: TruAPIBridgeContext
        let host: TruAPIBridgeHost
        let session: TruAPISession?

        init(product: String = "myapp.dot", session: TruAPISession? = try? TruAPISession(entropy: SigningHostTests.vectorEntropy, liteUsername: "alice"),
             policy: String? = nil, prompter: (any TruAPIPrompter)? = nil, autoAccept: Bool = false, denyAll: Bool = false,
             state: TruAPIBridgeState = .ephemeral()) throws {
            let events = events
            let productID = try TruAPIProductID(product)
            let rules = try policy.map { try TruAPIPolicy.parse($0, source: "test") } ?? .promptEverything
            let broker = TruAPIPermissionBroker(productID: productID, policy: rules, state: state, prompter: prompter, autoAccept: autoAccept,
                                                denyAll: denyAll, onEvent: { events.record($0) })
            context = TruAPIBridgeContext(productID: productID, session: session, chains: .empty, state: state, permissions: broker,
                                          onEvent: { events.record($0) })
            host = TruAPIBridgeHost(context: context, connectionID: 1)
            self.session = session
        }

        func respond(_ name: String, _ request: SCALEValue = .unit) async -> Result<SCALEValue, TruAPICallError> {
            await host.respond(to: TruAPICall(requestID: "p:1", method: method(name), request: request))
        }

        func ok(_ name: String, _ request: SCALEValue = .unit, sourceLocation: SourceLocation = #_sourceLocation) async throws -> SCALEValue {
            let answer = await respond(name, request)
            guard case .success(let body) = answer else {
                Issue.record("\(name) answered \(answer)", sourceLocation: sourceLocation)
                throw TestSupportError("\(name) failed")
            }
            return body
        }
    }

    static func account(_ product: String = "myapp.dot", index: UInt32 = 0) -> SCALEValue {
        .record(["dot_ns_identifier": .string(product), "derivation_index": .variant("Index", .int(index))])
    }

    static func rawAccount(_ product: String, _ bytes: [UInt8]) -> SCALEValue {
        .record(["dot_ns_identifier": .string(product), "derivation_index": .variant("Raw", .bytes(bytes))])
    }

    static func text(_ payload: String) -> SCALEValue { .variant("Payload", .record(["payload": .string(payload)])) }
    static func bytes(_ payload: [UInt8]) -> SCALEValue { .variant("Bytes", .record(["bytes": .bytes(payload)])) }

    static func signRaw(_ account: SCALEValue = account(), _ payload: SCALEValue = text("hello")) -> SCALEValue {
        .record(["account": account, "payload": payload])
    }

    static func unit(_ name: String) -> TruAPICallError { .domainV1(.unitVariant(name)) }

    /// A `HostSignPayloadData` with the standard extensions and a call of `methodCount` bytes.
    static func payloadData(methodCount: Int = 4, version: Int = 4, withTransaction: Bool? = nil,
                            extensions: [String] = ["CheckNonZeroSender", "CheckSpecVersion", "CheckTxVersion", "CheckGenesis", "CheckMortality",
                                                    "CheckNonce", "CheckWeight", "ChargeTransactionPayment"]) -> SCALEValue {
        .record([
            "block_hash": .bytes([UInt8](repeating: 0xb1, count: 32)), "block_number": .bytes([0x10, 0, 0, 0]), "era": .bytes([0x15, 0x01]),
            "genesis_hash": .bytes([UInt8](repeating: 0x61, count: 32)), "method": .bytes((0..<methodCount).map { UInt8(truncatingIfNeeded: $0 * 3) }),
            "nonce": .bytes([0x08]), "spec_version": .bytes([1, 0, 0, 0]), "tip": .bytes([0x00]), "transaction_version": .bytes([7, 0, 0, 0]),
            "signed_extensions": .sequence(extensions.map(SCALEValue.string)), "version": .int(version), "asset_id": .absent,
            "metadata_hash": .absent, "mode": .absent, "with_signed_transaction": .option(withTransaction.map(SCALEValue.bool)),
        ])
    }

    static func cryptoVector(_ name: String) throws -> JSONValue {
        let vectors = try #require(try truapiVector("crypto.json")["vectors"]?.arrayValue)
        return try #require(vectors.first { $0["name"]?.stringValue == name }, "crypto.json has \(name)")
    }

    // MARK: - Accounts and entropy

    @Test("get_account answers crypto.json's product key; raw indices; DomainNotValid; NotConnected", .vectors("truapi/crypto.json"))
    func accounts() async throws {
        let vector = try Self.cryptoVector("product_account_public_key_myapp_index0")
        let fixture = try Fixture(session: try TruAPISession(entropy: hexBytes(try #require(vector["inputs"]?["entropy_hex"]?.stringValue))))
        let body = try await fixture.ok("account_get_account", .record(["product_account_id": Self.account(" MyApp.DOT ")]))
        #expect(body == .record(["account": .record(["public_key": .bytes(hexBytes(try #require(vector["expected"]?["public_key_hex"]?.stringValue)))])]))
        let raw = [UInt8](repeating: 0x07, count: 32)
        let rawBody = try await fixture.ok("account_get_account", .record(["product_account_id": Self.rawAccount("myapp.dot", raw)]))
        let expected = try SigningHost.productAccount(root: SigningHost.rootKeypair(entropy: Self.vectorEntropy), productID: "myapp.dot",
                                                      index: .raw(Sr25519.ChainCode(raw))).publicKey.rawRepresentation
        #expect(rawBody["account"]?["public_key"]?.bytesValue == expected)
        #expect(await fixture.respond("account_get_account", .record(["product_account_id": Self.account("not a product")]))
                == .failure(Self.unit("DomainNotValid")))
        let empty = try Fixture(session: nil)
        #expect(await empty.respond("account_get_account", .record(["product_account_id": Self.account()])) == .failure(Self.unit("NotConnected")))
        #expect(await empty.respond("account_get_account", .record(["product_account_id": Self.account("bad id")])) == .failure(Self.unit("DomainNotValid")),
                "the id is checked before the session, as the reference does")
    }

    @Test("entropy_derive over the host equals crypto.json's product entropy; a key of 0 or 33 bytes is Unknown", .vectors("truapi/crypto.json"))
    func entropy() async throws {
        for name in ["product_entropy_ios_1", "product_entropy_ios_3", "product_entropy_localhost"] {
            let vector = try Self.cryptoVector(name)
            let inputs = try #require(vector["inputs"])
            let fixture = try Fixture(product: try #require(inputs["product_id"]?.stringValue),
                                      session: try TruAPISession(entropy: hexBytes(try #require(inputs["entropy_secret_hex"]?.stringValue))))
            let body = try await fixture.ok("entropy_derive", .record(["context": .bytes(hexBytes(try #require(inputs["key_hex"]?.stringValue)))]))
            #expect(body == .record(["entropy": .bytes(hexBytes(try #require(vector["expected"]?["entropy_hex"]?.stringValue)))]), "\(name)")
        }
        let fixture = try Fixture()
        for count in [0, 33] {
            #expect(await fixture.respond("entropy_derive", .record(["context": .bytes([UInt8](repeating: 1, count: count))]))
                    == .failure(.domainUnknown("\"key\" must be between 1 and 32 bytes, got \(count)")))
        }
        #expect(await (try Fixture(session: nil)).respond("entropy_derive", .record(["context": .bytes([1])])) == .failure(.domainUnknown("Not connected")))
    }

    @Test("get_user_id: the full username before the lite one, after identity disclosure; Unknown without one")
    func userID() async throws {
        let both = try TruAPISession(entropy: Self.vectorEntropy, liteUsername: "lite", fullUsername: "full.dot")
        #expect(try await Fixture(session: both, autoAccept: true).ok("account_get_user_id") == .record(["primary_username": .string("full.dot")]))
        let none = try TruAPISession(entropy: Self.vectorEntropy)
        #expect(await (try Fixture(session: none, autoAccept: true)).respond("account_get_user_id")
                == .failure(.domainUnknown("No primary username for this session")))
        #expect(await (try Fixture(session: both, denyAll: true)).respond("account_get_user_id") == .failure(Self.unit("PermissionDenied")))
    }

    // MARK: - Signatures

    @Test("sign_raw: the 64-byte signature verifies over the wrapped message for Bytes, text and hex; bad hex is Unknown")
    func signRaw() async throws {
        let fixture = try Fixture(autoAccept: true)
        let key = try #require(fixture.session).productAccount(productID: "myapp.dot").publicKey
        let cases: [(SCALEValue, [UInt8])] = [
            (Self.text("hello"), Array("<Bytes>hello</Bytes>".utf8)),
            (Self.text("0xdeadbeef"), Array("<Bytes>".utf8) + [0xde, 0xad, 0xbe, 0xef] + Array("</Bytes>".utf8)),
            (Self.bytes(Array("<Bytes>hi</Bytes>".utf8)), Array("<Bytes>hi</Bytes>".utf8)),
            (Self.bytes([0, 1, 2]), Array("<Bytes>".utf8) + [0, 1, 2] + Array("</Bytes>".utf8)),
        ]
        for (payload, message) in cases {
            let body = try await fixture.ok("signing_sign_raw", Self.signRaw(Self.account(), payload))
            let signature = try #require(body["signature"]?.bytesValue)
            #expect(signature.count == 64 && body["signed_transaction"] == .absent)
            #expect(try key.isValidSignature(signature, for: message), "\(payload)")
        }
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw(Self.account(), Self.text("0xZZ")))
                == .failure(.domainUnknown("raw sign payload is 0x-prefixed but not valid hex")))
        let other = try await fixture.ok("signing_sign_raw", Self.signRaw(Self.account(index: 5)))
        #expect(try !key.isValidSignature(try #require(other["signature"]?.bytesValue), for: Array("<Bytes>hello</Bytes>".utf8)),
                "index 5 is another account")
    }

    @Test("sign_payload v4: a MultiSignature over the preimage, BLAKE2b-256 over 256 bytes, the signed extrinsic carries it")
    func signPayload() async throws {
        let fixture = try Fixture(autoAccept: true)
        let key = try #require(fixture.session).productAccount(productID: "myapp.dot").publicKey
        for (count, hashed) in [(4, false), (300, true)] {
            let data = Self.payloadData(methodCount: count, withTransaction: true)
            let body = try await fixture.ok("signing_sign_payload", .record(["account": Self.account(), "payload": data]))
            let multi = try #require(body["signature"]?.bytesValue)
            #expect(multi.count == 65 && multi[0] == 0x01)
            let preimage = try #require(try? SigningHostDecoding.payload(data).preimage())
            #expect((preimage.count > 256) == hashed)
            #expect(try key.isValidSignature(multi.dropFirst(), for: hashed ? BLAKE2b.hash256(preimage) : preimage))
            let extrinsic = try #require(body["signed_transaction"]?.optionValue??.bytesValue)
            let method = try #require(data["method"]?.bytesValue)
            // compact length, 84, 00 ‖ signer, the same MultiSignature, extras (era, nonce, tip), the call.
            let inner = [0x84, 0x00] + key.rawRepresentation + multi + [0x15, 0x01, 0x08, 0x00] + method
            var length = SCALEWriter(capacity: 4)
            length.compact(UInt128(inner.count))
            #expect(extrinsic == length.bytes + inner)
        }
        let noTransaction = try await fixture.ok("signing_sign_payload", .record(["account": Self.account(), "payload": Self.payloadData()]))
        #expect(noTransaction["signed_transaction"] == .absent)
        #expect(await fixture.respond("signing_sign_payload", .record(["account": Self.account(), "payload": Self.payloadData(version: 3)]))
                == .failure(.domainUnknown("signing host: unsupported extrinsic payload version 3; only version 4 is supported")))
        #expect(await fixture.respond("signing_sign_payload", .record(["account": Self.account(), "payload": Self.payloadData(extensions: ["CheckNew"])]))
                == .failure(.domainUnknown("signed extension 1 'CheckNew' is not supported")))
    }

    @Test("create_transaction: an extrinsic V4 signed over call ‖ extras ‖ additional; V5 and other versions are NotSupported")
    func createTransaction() async throws {
        let fixture = try Fixture(autoAccept: true)
        let key = try #require(fixture.session).productAccount(productID: "myapp.dot", index: .index(2)).publicKey
        let call: [UInt8] = [0x05, 0x03] + [UInt8](repeating: 0x42, count: 40)
        let extensions: [SCALEValue] = [
            .record(["id": .string("CheckMortality"), "extra": .bytes([0x00]), "additional_signed": .bytes([UInt8](repeating: 0x61, count: 32))]),
            .record(["id": .string("CheckNonce"), "extra": .bytes([0x04]), "additional_signed": .bytes([])]),
        ]
        func request(_ version: Int) -> SCALEValue {
            .record(["signer": Self.account(index: 2), "genesis_hash": .bytes([UInt8](repeating: 0x61, count: 32)), "call_data": .bytes(call),
                     "extensions": .sequence(extensions), "tx_ext_version": .int(version)])
        }
        let transaction = try #require(try await fixture.ok("signing_create_transaction", request(0))["transaction"]?.bytesValue)
        var reader = SCALEReader(transaction)
        let length = try reader.compact()
        #expect(Int(length) == reader.remaining)
        let body = Array(transaction.suffix(Int(length)))
        #expect(Array(body.prefix(2)) == [0x84, 0x00] && Array(body[2..<34]) == key.rawRepresentation && body[34] == 0x01)
        #expect(Array(body[99...]) == [0x00, 0x04] + call)
        #expect(try key.isValidSignature(body[35..<99], for: call + [0x00, 0x04] + [UInt8](repeating: 0x61, count: 32)))
        for version in [5, 1] {
            guard case .failure(.domain(.variant("V1", .variant("NotSupported", let fields)))) = await fixture.respond("signing_create_transaction", request(version)) else {
                Issue.record("tx_ext_version \(version) is not NotSupported")
                continue
            }
            #expect(fields["reason"]?.stringValue?.contains("tx_ext_version \(version)") == true)
        }
    }

    @Test("legacy accounts: the identity and slot-0 accounts as SS58 or hex; other keys get the reference's reasons")
    func legacyAccounts() async throws {
        let fixture = try Fixture(autoAccept: true)
        let session = try #require(fixture.session)
        let identity = session.identityPublicKey.rawRepresentation
        let slotZero = session.productAccount(productID: "myapp.dot").publicKey.rawRepresentation
        for (signer, key) in [(try SS58.encode(identity), identity), ("0x" + Hex.encode(slotZero), slotZero), (try SS58.encode(slotZero, prefix: 0), slotZero)] {
            let body = try await fixture.ok("signing_sign_raw_with_legacy_account", .record(["signer": .string(signer), "payload": Self.text("hi")]))
            #expect(try Sr25519.PublicKey(rawRepresentation: key).isValidSignature(try #require(body["signature"]?.bytesValue),
                                                                                   for: Array("<Bytes>hi</Bytes>".utf8)), "\(signer)")
        }
        let stranger = try SS58.encode([UInt8](repeating: 0x11, count: 32))
        #expect(await fixture.respond("signing_sign_raw_with_legacy_account", .record(["signer": .string(stranger), "payload": Self.text("hi")]))
                == .failure(.domainUnknown("Account is not available in the active session")))
        let payload = try await fixture.ok("signing_sign_payload_with_legacy_account",
                                           .record(["signer": .string(Hex.encode(slotZero)), "payload": Self.payloadData()]))
        #expect(payload["signature"]?.bytesValue?.count == 65)
        #expect(await fixture.respond("signing_sign_payload_with_legacy_account",
                                      .record(["signer": .string(try SS58.encode(identity)), "payload": Self.payloadData()]))
                == .failure(.domainUnknown("Account can't be derived from product account id")), "sign_payload takes only the product account")
        func transaction(_ signer: [UInt8]) -> SCALEValue {
            .record(["signer": .bytes(signer), "genesis_hash": .bytes([UInt8](repeating: 0, count: 32)), "call_data": .bytes([1, 2]),
                     "extensions": .sequence([]), "tx_ext_version": .int(0)])
        }
        for key in [identity, slotZero] {
            let built = try #require(try await fixture.ok("signing_create_transaction_with_legacy_account", transaction(key))["transaction"]?.bytesValue)
            // 101 bytes after a two-byte compact length: 84, 00 ‖ signer, …
            #expect(Array(built[2..<4]) == [0x84, 0x00] && Array(built[4..<36]) == key)
        }
        #expect(await fixture.respond("signing_create_transaction_with_legacy_account", transaction([UInt8](repeating: 9, count: 32)))
                == .failure(.domainUnknown("Account can't be derived from product account id")))
        let empty = try Fixture(session: nil, autoAccept: true)
        for name in ["signing_sign_raw_with_legacy_account", "signing_sign_payload_with_legacy_account"] {
            #expect(await empty.respond(name, .record(["signer": .string(stranger), "payload": Self.text("hi")])) == .failure(Self.unit("Rejected")))
        }
        #expect(await empty.respond("signing_create_transaction_with_legacy_account", transaction(identity)) == .failure(Self.unit("Rejected")))
    }

    @Test("sign_vrf: the pre-output and proof verify for the account; transcript limits; NotConnected; an invalid account")
    func signVRF() async throws {
        let fixture = try Fixture(autoAccept: true)
        let items: [SCALEValue] = [.record(["label": .bytes(Array("round".utf8)), "value": .bytes([1, 0, 0, 0])]),
                                   .record(["label": .bytes(Array("epoch".utf8)), "value": .bytes([9])])]
        let request = SCALEValue.record(["account": Self.account(index: 1), "transcript_label": .bytes(Array("omni-test".utf8)), "items": .sequence(items)])
        let body = try await fixture.ok("account_sign_vrf", request)
        var transcript = MerlinTranscript(label: Array("omni-test".utf8))
        transcript.appendMessage(label: Array("round".utf8), [1, 0, 0, 0])
        transcript.appendMessage(label: Array("epoch".utf8), [9])
        let key = try #require(fixture.session).productAccount(productID: "myapp.dot", index: .index(1)).publicKey
        #expect(try key.vrfVerify(transcript: transcript, preOutput: try #require(body["pre_output"]?.bytesValue),
                                  proof: try #require(body["proof"]?.bytesValue)) != nil)
        let many = SCALEValue.record(["account": Self.account(), "transcript_label": .bytes([]),
                                      "items": .sequence(Array(repeating: items[0], count: 33))])
        #expect(await fixture.respond("account_sign_vrf", many) == .failure(.domainUnknown("VRF transcript has 33 items, at most 32 are allowed")))
        let big = SCALEValue.record(["account": Self.account(), "transcript_label": .bytes([UInt8](repeating: 1, count: 8193)), "items": .sequence([])])
        #expect(await fixture.respond("account_sign_vrf", big) == .failure(.domainUnknown("VRF transcript exceeds the 8192-byte limit")))
        let invalid = SCALEValue.record(["account": Self.account("nope"), "transcript_label": .bytes([]), "items": .sequence([])])
        #expect(await fixture.respond("account_sign_vrf", invalid) == .failure(.domainUnknown("Invalid product account")))
        #expect(await (try Fixture(session: nil, autoAccept: true)).respond("account_sign_vrf", request) == .failure(Self.unit("NotConnected")))
    }

    // MARK: - Refusals

    @Test("a missing session: every method answers the reference's typed error, product checks first")
    func missingSession() async throws {
        let fixture = try Fixture(session: nil, policy: Self.allowChainSubmit, autoAccept: true)
        let payload = SCALEValue.record(["account": Self.account(), "payload": Self.payloadData()])
        let transaction = SCALEValue.record(["signer": Self.account(), "genesis_hash": .bytes([UInt8](repeating: 0, count: 32)),
                                             "call_data": .bytes([]), "extensions": .sequence([]), "tx_ext_version": .int(0)])
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw()) == .failure(Self.unit("Rejected")))
        #expect(await fixture.respond("signing_sign_payload", payload) == .failure(Self.unit("Rejected")))
        #expect(await fixture.respond("signing_create_transaction", transaction) == .failure(Self.unit("Rejected")))
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw(Self.account("other.dot"))) == .failure(Self.unit("PermissionDenied")),
                "another product's account is refused before the session is looked at")
        #expect(await fixture.respond("account_get_user_id") == .failure(Self.unit("NotConnected")))
        #expect(await fixture.respond("account_request_login") == .success(.unitVariant("Rejected")))
        #expect(try await (try Fixture(autoAccept: true)).ok("account_request_login") == .unitVariant("AlreadyConnected"))
        #expect(fixture.context.connectionStatus.value == .unitVariant("Disconnected"))
        #expect(try Fixture().context.connectionStatus.value == .unitVariant("Connected"))
    }

    @Test("policy denial: --deny-all and a policy deny refuse with the reference's errors, nothing is asked")
    func policyDenial() async throws {
        let prompter = ScriptedPrompter([true, true, true])
        for fixture in [try Fixture(denyAll: true), try Fixture(policy: #"{"default": "deny"}"#, prompter: prompter)] {
            #expect(await fixture.respond("signing_sign_raw", Self.signRaw()) == .failure(Self.unit("PermissionDenied")))
            #expect(await fixture.respond("account_get_account", .record(["product_account_id": Self.account("other.dot")])) == .failure(Self.unit("Rejected")))
            #expect(await fixture.respond("account_get_user_id") == .failure(Self.unit("PermissionDenied")))
            #expect(await fixture.respond("account_sign_vrf", .record(["account": Self.account(), "transcript_label": .bytes([]), "items": .sequence([])]))
                    == .failure(Self.unit("Rejected")))
        }
        let confirmationsDenied = try Fixture(policy: #"{"remote": {"chain_submit": "allow"}, "confirmations": {"sign_raw": "deny"}}"#)
        #expect(await confirmationsDenied.respond("signing_sign_raw", Self.signRaw()) == .failure(Self.unit("Rejected")))
        #expect(prompter.questions.isEmpty)
        // The product's own account needs no access decision.
        #expect(try await (try Fixture(denyAll: true)).ok("account_get_account", .record(["product_account_id": Self.account()]))["account"] != nil)
    }

    @Test("another product: signing for it is PermissionDenied before anything is asked; localhost may; get_account asks for access")
    func otherProducts() async throws {
        let prompter = ScriptedPrompter([true, true])
        let fixture = try Fixture(policy: Self.allowChainSubmit, prompter: prompter)
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw(Self.account("other.dot"))) == .failure(Self.unit("PermissionDenied")))
        #expect(prompter.questions.isEmpty)
        let body = try await fixture.ok("account_get_account", .record(["product_account_id": Self.account("other.dot")]))
        #expect(prompter.questions.map(\.subjects) == [[.accountAccess("other.dot")]])
        let expected = try #require(fixture.session).productAccount(productID: "other.dot").publicKey.rawRepresentation
        #expect(body["account"]?["public_key"]?.bytesValue == expected)
        _ = try await fixture.ok("account_get_account", .record(["product_account_id": Self.account("other.dot", index: 3)]))
        #expect(prompter.questions.count == 1, "account access is remembered for the product")

        let developer = try Fixture(product: "localhost:3000", autoAccept: true)
        let signed = try await developer.ok("signing_sign_raw", Self.signRaw(Self.account("other.dot")))
        #expect(try Sr25519.PublicKey(rawRepresentation: expected).isValidSignature(try #require(signed["signature"]?.bytesValue),
                                                                                      for: Array("<Bytes>hello</Bytes>".utf8)))
    }

    @Test("no terminal: a prompt refuses — PermissionDenied at chain_submit, Rejected at the confirmation — and nothing is kept")
    func promptWithoutTerminal() async throws {
        let state = TruAPIBridgeState.ephemeral()
        let fixture = try Fixture(prompter: nil, state: state)
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw()) == .failure(Self.unit("PermissionDenied")))
        #expect(await fixture.respond("account_get_user_id") == .failure(Self.unit("PermissionDenied")))
        let allowed = try Fixture(policy: Self.allowChainSubmit, prompter: nil, state: state)
        #expect(await allowed.respond("signing_sign_raw", Self.signRaw()) == .failure(Self.unit("Rejected")))
        #expect(await allowed.respond("signing_create_transaction_with_legacy_account", .record([
            "signer": .bytes(try #require(allowed.session).identityPublicKey.rawRepresentation), "genesis_hash": .bytes([UInt8](repeating: 0, count: 32)),
            "call_data": .bytes([]), "extensions": .sequence([]), "tx_ext_version": .int(0)])) == .failure(Self.unit("Rejected")))
        #expect(state.storedDecisions.isEmpty, "no answer is no decision")
        #expect(fixture.events.all.filter { $0.name == "permission" }.allSatisfy { $0["source"]?.stringValue == "no_prompt" })
    }

    @Test("confirmations: asked for each request with the decoded payload, never remembered; the card carries no contents")
    func confirmations() async throws {
        let prompter = ScriptedPrompter([true, true, false, true])
        let fixture = try Fixture(prompter: prompter)
        let secret = "attack at dawn, 0xc0ffee"
        _ = try await fixture.ok("signing_sign_raw", Self.signRaw(Self.account(), Self.text(secret)))
        #expect(await fixture.respond("signing_sign_raw", Self.signRaw(Self.account(), Self.text(secret))) == .failure(Self.unit("Rejected")))
        _ = try await fixture.ok("signing_sign_raw", Self.signRaw(Self.account(), Self.text("second")))
        let subjects = prompter.questions.map(\.subjects)
        #expect(subjects == [[.remote("chain_submit")], [.confirmation("sign_raw")], [.confirmation("sign_raw")], [.confirmation("sign_raw")]],
                "chain_submit is asked once, each signature by itself")
        let review = try #require(prompter.questions[1].review)
        #expect(review.details.contains { $0.contains("\"\(secret)\"") }, "the prompt shows the message: \(review.details)")
        let address = try SS58.encode(try #require(fixture.session).productAccount(productID: "myapp.dot").publicKey.rawRepresentation)
        #expect(review.details.contains { $0.contains(address) })
        #expect(prompter.questions[1].question == "myapp.dot asks to sign a message. Allow?")
        let cards = fixture.events.all.compactMap { $0["card"]?.arrayValue }
        #expect(!cards.isEmpty)
        for event in fixture.events.all {
            #expect(!event.json.serialized().contains("attack"), "events never carry the payload: \(event.json.serialized())")
        }
    }

    @Test("traces redact what the signing host answers: signatures, signed transactions, VRF outputs and proofs, product entropy")
    func tracesRedactSigningAnswers() async throws {
        let fixture = try Fixture(autoAccept: true)
        let transaction = SCALEValue.record(["signer": Self.account(), "genesis_hash": .bytes([UInt8](repeating: 0, count: 32)), "call_data": .bytes([5, 0]),
                                             "extensions": .sequence([]), "tx_ext_version": .int(0)])
        let calls: [(String, SCALEValue, [String])] = [
            ("signing_sign_raw", Self.signRaw(), ["signature"]),
            ("signing_sign_payload", .record(["account": Self.account(), "payload": Self.payloadData(withTransaction: true)]), ["signature", "signed_transaction"]),
            ("signing_create_transaction", transaction, ["transaction"]),
            ("account_sign_vrf", .record(["account": Self.account(), "transcript_label": .bytes([1]), "items": .sequence([])]), ["pre_output", "proof"]),
            ("entropy_derive", .record(["context": .bytes([1, 2])]), ["entropy"]),
        ]
        for (name, request, fields) in calls {
            let answer = await fixture.respond(name, request)
            let message = TruAPIMessage(requestID: "p:1", method: method(name), kind: .request, payload: .variant("V1", request)).response(answer)
            let line = TruAPITrace.line(connection: 1, .outgoing, try message.frame().bytes)
            #expect(line["redacted"] == .bool(true) && line["payload_hex"] == nil, "\(name)")
            for field in fields { #expect(line["payload"]?["Ok"]?[field]?.stringValue == TruAPITrace.redactedMarker, "\(name).\(field)") }
        }
    }

    @Test("auto-accept approves with a card per approval: kind, product, account and size")
    func autoAcceptCards() async throws {
        let fixture = try Fixture(autoAccept: true)
        _ = try await fixture.ok("signing_sign_payload", .record(["account": Self.account(), "payload": Self.payloadData(methodCount: 10)]))
        let approvals = fixture.events.all.filter { $0.name == "permission" && $0["source"]?.stringValue == "auto_accept" }
        #expect(approvals.map { $0["subjects"] } == [.array(["remote:chain_submit"]), .array(["confirmation:sign_payload"])])
        let card = (approvals.last?["card"]?.arrayValue ?? []).compactMap(\.stringValue)
        let address = try SS58.encode(try #require(fixture.session).productAccount(productID: "myapp.dot").publicKey.rawRepresentation)
        #expect(card == ["sign_payload", "product myapp.dot", "account \(address) (myapp.dot, index 0)", "call 10 bytes (contents redacted)"])
    }
}

/// The payload decoding the host uses, for tests that compute what it signed.
enum SigningHostDecoding {
    static func payload(_ data: SCALEValue) throws -> SigningHost.PayloadV4 {
        switch TruAPISigningHost.payloadV4(data) {
        case .success(let payload): return payload
        case .failure(let error): throw TestSupportError("\(error)")
        }
    }
}

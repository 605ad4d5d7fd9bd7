import Foundation
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniTestSupport
import Testing
@testable import OmniIC

/// request_id.json, keys.json, envelopes, ingress expiry.
@Suite struct RequestTests {
    typealias Value = RepresentationIndependentHash.Value

    /// The vector file describes values in words ("blob 4449…", "nat 3", "text \"hello\"", "0x04 (…)", a nat that
    /// Rust typed as i32); this reads them back into the hash's data model.
    static func value(_ json: JSONValue) throws -> Value {
        switch json {
        case .number(let text):
            guard let value = UInt64(text) else { throw TestSupportError("number \(text)") }
            return .nat(BigUInt(value))
        case .array(let items): return .array(try items.map(value))
        case .object(let object): return .map(try object.map { (key: $0.key, value: try value($0.value)) })
        case .string(let text): return try described(text)
        default: throw TestSupportError("unexpected \(json)")
        }
    }

    static func described(_ text: String) throws -> Value {
        func firstWord(_ s: Substring) -> Substring { s.prefix(while: { $0 != " " }) }
        func quoted(_ s: Substring) throws -> String {
            guard s.first == "\"", let end = s.dropFirst().firstIndex(of: "\"") else { throw TestSupportError("quote in \(text)") }
            return String(s[s.index(after: s.startIndex)..<end])
        }
        if text.hasPrefix("0x") { return .blob(try hex(String(firstWord(text.dropFirst(2))))) }
        if text.hasPrefix("blob") {
            let rest = text.dropFirst(4).drop(while: { $0 == " " })
            if rest.first == "\"" { return .blob(Array(try quoted(rest).utf8)) }
            return .blob(try hex(String(firstWord(rest))))
        }
        if text.hasPrefix("nat ") {
            guard let number = Int64(firstWord(text.dropFirst(4))) else { throw TestSupportError("nat in \(text)") }
            // "(i32 in Rust …)": agent-rs serialises it as a signed integer, hashed as SLEB128.
            return text.contains("i32") ? .int(BigInt(number)) : .nat(BigUInt(UInt64(number)))
        }
        if text.hasPrefix("text ") { return .text(try quoted(text.dropFirst(5))) }
        return .text(text)
    }

    @Test("request_id.json: every request id and hash, and every intermediate hash of the spec example", .vectors("ic"))
    func requestIDs() throws {
        let document = try icVector("request_id.json")
        var count = 0
        for vector in try document.array("vectors") {
            let id = try vector.string("id")
            let expected = try vector["request_id"]?.stringValue ?? vector.string("hash")
            let content: Value
            if id == "array [1,2,3] at top level" {
                content = .array([.nat(1), .nat(2), .nat(3)])
            } else {
                guard let described = vector["content"] else { throw TestSupportError("no content in \(id)") }
                content = try RequestTests.value(described)
            }
            #expect(Hex.encode(RepresentationIndependentHash.hash(content)) == expected, "\(id)")
            count += 1
            if let intermediate = vector["intermediate_hashes"]?.objectValue, case .map(let pairs) = content {
                let hashes = intermediate.map(\.value)
                #expect(hashes.count == 2 * pairs.count)
                for (index, pair) in pairs.enumerated() {
                    #expect(Hex.encode(SHA256.hash(Array(pair.key.utf8))) == hashes[2 * index].stringValue, "\(id) key \(index)")
                    #expect(Hex.encode(RepresentationIndependentHash.hash(pair.value)) == hashes[2 * index + 1].stringValue,
                            "\(id) value \(index)")
                    count += 2
                }
            }
        }
        #expect(count == 14 + 12)
        print("request_id.json: \(count) hashes (14 ids, 12 intermediate)")
    }

    @Test("request_id.json: the spec example and the delegation hash through the typed API")
    func typedRequestIDs() throws {
        let canister = try Principal.fromBytes(try hex("00000000000004d2"))
        let call = try ICRequest(.call(canister: canister, method: "hello", arg: try hex("4449444c00fd2a")),
                                 sender: .anonymous, ingressExpiry: 1_685_570_400_000_000_000)
        #expect(call.requestID.hex == "1d1091364d6bb8a6c16b203ee75467d59ead468f523eb058880ae8ec80e2b101")
        #expect(call.requestID.prefixedHex == "0x1d1091364d6bb8a6c16b203ee75467d59ead468f523eb058880ae8ec80e2b101")
        #expect(try RequestID(hex: call.requestID.prefixedHex) == call.requestID)
        let delegation = Delegation(
            publicKey: try hex("302a300506032b6570032100819d9fe3ac251039f934cdc925da0b019848af9d650d4136fb5d955cff17f78e"),
            expiration: 1_611_365_875_951_000_000,
            targets: [try Principal.fromBytes(try hex("000000000030004d0101")), try Principal.fromBytes(try hex("000000000020002b0101"))])
        #expect(delegation.signedMessage == DomainSeparator.delegation + (try hex("f0c66015041eccb5528fc7fd817bb4d0707369d7e1383d3cdaa074b2b2236824")))
        let readState = try ICRequest(.readState(paths: [StatePath([]), StatePath([[]]), StatePath([Array("hello".utf8), Array("world".utf8)])]),
                                      sender: canister, ingressExpiry: 0)
        #expect(try RepresentationIndependentHash.hash(["sender": .bytes(canister.bytes), "paths": readState.content["paths"] ?? .null])
            == (try hex("97d6f297aea699aec85d3377c7643ea66db810aba5c4372fbc2082c999f452dc")))
    }

    @Test func hashRefusesValuesWithoutARepresentation() throws {
        for value: CBOR in [1.5, true, nil, .negative(0), .tagged(7, 1), .map([(key: 1, value: 2)])] {
            if case .negative = value {
                #expect((try? RepresentationIndependentHash.hash(value)) == SHA256.hash(LEB128.encodedSigned(Int64(-1))))
                continue
            }
            expectICError(.malformed, "\(value)") { _ = try RepresentationIndependentHash.hash(value) }
        }
        var deep: CBOR = 1
        for _ in 0..<70 { deep = [deep] }
        expectICError(.malformed, "depth") { _ = try RepresentationIndependentHash.hash(deep) }
        #expect(try RepresentationIndependentHash.hash(.tagged(2, .bytes([1, 0]))) == SHA256.hash(LEB128.encoded(UInt64(256))))
    }

    @Test("keys.json: Ed25519 raw → DER, secp256k1 PEMs → DER, refused curve, domain separators", .vectors("ic"))
    func keys() throws {
        let document = try icVector("keys.json")
        var count = 0
        guard let ed25519 = document["ed25519_raw_to_der"], let secp = document["secp256k1_pem_to_der_public_key"],
              let separators = document["signature_domain_separators"]?.objectValue
        else { throw TestSupportError("keys.json layout") }
        #expect(SenderPublicKey.ed25519Prefix == (try hex(try ed25519.string("der_prefix_hex"))))
        for vector in try ed25519.array("vectors") {
            let key = try Ed25519.PublicKey(rawRepresentation: try hex(try vector.string("raw_hex")))
            #expect(Hex.encode(key.derRepresentation) == (try vector.string("der_hex")))
            #expect(try SenderPublicKey(der: key.derRepresentation) == .ed25519(key))
            count += 1
        }
        let expectedDER = try hex(try secp.string("der_public_key_hex"))
        for field in ["pem_sec1", "pem_pkcs8"] {
            let identity = try ICIdentity(pem: try secp.string(field))
            #expect(identity.keyType == .secp256k1)
            #expect(identity.publicKeyDER == expectedDER, "\(field)")
            #expect(identity.principal.text == "t2kpu-6xt6l-tyb3d-rll2p-irv5c-no5nd-h6spj-jsetq-bmqdz-iap77-pqe")
            guard case .ecdsa(let key) = try SenderPublicKey(der: expectedDER) else { throw TestSupportError("not ECDSA") }
            #expect(key.curve == .secp256k1)
            count += 1
        }
        for reject in try secp.array("must_reject") {
            expectICError(.unsupported, "secp160r2") { _ = try ICIdentity(pem: try reject.string("pem")) }
            count += 1
        }
        let ours: [String: [UInt8]] = [
            "request (sender_sig)": DomainSeparator.request, "delegation": DomainSeparator.delegation,
            "query response (node signature)": DomainSeparator.response, "certificate (BLS)": DomainSeparator.stateRoot,
            "sender_info (canister sig)": DomainSeparator.senderInfo,
        ]
        for (name, description) in separators {
            guard let text = description.stringValue, let separator = ours[name] else { throw TestSupportError("separator \(name)") }
            #expect(text.hasPrefix(Hex.encode(separator) + " "), "\(name)")
            count += 1
        }
        #expect(count == 11)
        print("keys.json: \(count) vectors")
    }

    /// Every form an identity's private key could take in text: the raw secret as hex (both cases), and the
    /// base64 body of its PEM export, whole and line by line.
    static func secretForms(of identity: ICIdentity) throws -> [String] {
        let secret: [UInt8]
        switch identity.signer {
        case .ed25519(let key): secret = key.seed
        case .ecdsa(let key): secret = key.rawRepresentation
        default: throw TestSupportError("no private key in \(identity.keyType)")
        }
        guard secret.count == 32 else { throw TestSupportError("secret of \(secret.count) bytes") }
        let body = try identity.exportPrivateKeyPEM().split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        return [Hex.encode(secret), Hex.encode(secret, uppercase: true)] + body + [body.joined()]
    }

    @Test func envelopesForEveryKeyType() throws {
        let canister = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        let now: UInt64 = 1_700_000_000_000_000_000
        for type in [ICIdentity.KeyType.ed25519, .secp256k1, .p256] {
            let identity = try ICIdentity.generate(type)
            let request = try ICRequest(.call(canister: canister, method: "transfer", arg: [0x44, 0x49, 0x44, 0x4c, 0, 0]),
                                        sender: identity.principal, ingressExpiry: IngressExpiry.expiry(now: now),
                                        nonce: ICRequest.randomNonce())
            let envelope = try identity.envelope(for: request, at: now)
            let bytes = try envelope.encoded()
            #expect(bytes.starts(with: [0xd9, 0xd9, 0xf7]))
            let decoded = try ICEnvelope(decoding: bytes)
            #expect(decoded == envelope)
            #expect(decoded.requestID == request.requestID)
            try decoded.verifySender(at: now)
            var tampered = decoded
            tampered.content.ingressExpiry += 1
            expectICError(.verificationFailed, reason: .signature, "\(type) tampered") { try tampered.verifySender(at: now) }
            let secrets = try RequestTests.secretForms(of: identity)
            #expect(secrets.count >= 4, "\(type): secret forms")
            var printed = [String(describing: identity), String(reflecting: identity), ""]
            dump(identity, to: &printed[2])
            for text in printed {
                #expect(!secrets.contains { text.contains($0) }, "\(type): \(text)")
            }
            // The check can fire: a text carrying the key (as a careless description would) is caught.
            #expect(secrets.contains { "ICIdentity(seed: \(secrets[0]))".contains($0) })
        }
        let anonymous = try ICRequest(.query(canister: canister, method: "m", arg: []), sender: .anonymous, ingressExpiry: 1)
        let envelope = try ICIdentity.anonymous.envelope(for: anonymous)
        #expect(envelope.senderPublicKey == nil && envelope.senderSignature == nil)
        try envelope.verifySender(at: 0)
        expectICError(.invalidArgument, "sender mismatch") { _ = try ICIdentity.generate().envelope(for: anonymous) }
        expectICError(.invalidArgument, "nonce") {
            _ = try ICRequest(.query(canister: canister, method: "m", arg: []), sender: .anonymous, ingressExpiry: 1,
                              nonce: [UInt8](repeating: 0, count: 33))
        }
    }

    @Test func envelopeDecodingRefusesUnknownFieldsAndTypes() throws {
        let content: CBOR = ["request_type": "call", "sender": .bytes([4]), "ingress_expiry": 1, "canister_id": .bytes([]),
                             "method_name": "m", "arg": .bytes([]), "extra": 1]
        expectICError(.malformed, "extra field") { _ = try ICEnvelope(decoding: try CBOR.map([(key: "content", value: content)]).encoded()) }
        let badType: CBOR = ["request_type": "mint", "sender": .bytes([4]), "ingress_expiry": 1]
        expectICError(.malformed, "type") { _ = try ICRequest(content: badType) }
        let readState: CBOR = ["request_type": "read_state", "sender": .bytes([4]), "ingress_expiry": 1,
                               "paths": [[.bytes(Array("time".utf8))]]]
        #expect(try ICRequest(content: readState).body == .readState(paths: [.time]))
    }

    @Test func ingressExpiryAndClockSkew() throws {
        let now: UInt64 = 1_685_570_412_345_678_901
        let expiry = IngressExpiry.expiry(now: now)
        #expect(expiry % IngressExpiry.minute == 0)
        #expect(expiry <= now + IngressExpiry.defaultLifetime && expiry > now + IngressExpiry.defaultLifetime - IngressExpiry.minute)
        // Replica 90 s ahead: the expiry moves with it.
        let skewed = IngressExpiry.expiry(now: now, clockSkew: 90_000_000_000)
        #expect(skewed == (now + 90_000_000_000 + IngressExpiry.defaultLifetime) / IngressExpiry.minute * IngressExpiry.minute)
        #expect(IngressExpiry.expiry(now: now, lifetime: 60_000_000_000) == now + 60_000_000_000)
        #expect(ClockSkew.skew(replicaTime: 100, localNow: 40) == 60)
        #expect(ClockSkew.skew(replicaTime: 40, localNow: 100) == -60)
        #expect(ClockSkew.apply(-200, to: 100) == 0 && ClockSkew.apply(.max, to: .max) == .max)
        // The replica's message (text as quoted in icp-js-core's syncTime test).
        let message = "Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: 2025-05-01 23:55:18.005285297 UTC, Maximum allowed expiry: 2025-05-02 00:00:48.005285297 UTC, Provided expiry: 2025-05-01 12:38:00 UTC"
        #expect(ClockSkew.replicaTime(fromExpiryError: message) == (try ICTime.parse("2025-05-01T23:55:18.005285297Z")))
        #expect(ClockSkew.replicaTime(fromExpiryError: "no time here") == nil)
    }

    @Test func timeParsingAndFormatting() throws {
        #expect(try ICTime.parse("1763796896688941908") == 1_763_796_896_688_941_908)
        #expect(try ICTime.parse("2025-11-22T07:34:56.688941908Z") == 1_763_796_896_688_941_908)
        #expect(ICTime.format(1_763_796_896_688_941_908) == "2025-11-22T07:34:56.688941908Z")
        #expect(try ICTime.parse("2022-02-23T08:38:00.652+01:00") == 1_645_601_880_652_000_000)
        #expect(try ICTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(ICTime.format(0) == "1970-01-01T00:00:00.000000000Z")
        #expect(try ICTime.parse("2025-11-22 07:34:56Z") == 1_763_796_896_000_000_000, "RFC 3339 §5.6 allows a space")
        for bad in ["", "2025-13-01T00:00:00Z", "2025-02-30T00:00:00Z", "2025-11-22T07:34:56", "99999999999999999999",
                    "2025-11-22T07:34:56.1234567890Z", "1969-12-31T23:59:59Z"] {
            expectICError(.malformed, bad) { _ = try ICTime.parse(bad) }
        }
    }

    @Test func effectiveCanisterRouting() throws {
        let target = try principal("rdmx6-jaaaa-aaaaa-aaadq-cai")
        let ledger = try principal("ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(try EffectiveCanisterID.resolve(canister: ledger, method: "transfer", arg: []) == .canister(ledger))
        let status = try Candid.encode([.record(["canister_id": .principal(target)])])
        #expect(try EffectiveCanisterID.resolve(canister: .managementCanister, method: "canister_status", arg: status) == .canister(target))
        let chunked = try Candid.encode([.record(["mode": .variant("install"), "target_canister": .principal(target),
                                                  "store_canister": .opt(.principal(ledger))])])
        #expect(try EffectiveCanisterID.resolve(canister: .managementCanister, method: "install_chunked_code", arg: chunked) == .canister(target))
        let create = try Candid.encode([.record(["amount": .opt(.nat(1))])])
        #expect(try EffectiveCanisterID.resolve(canister: .managementCanister, method: "provisional_create_canister_with_cycles", arg: create) == .any)
        expectICError(.invalidArgument, "no canister_id") {
            _ = try EffectiveCanisterID.resolve(canister: .managementCanister, method: "canister_status", arg: create)
        }
        expectICError(.malformed, "not Candid") { _ = try EffectiveCanisterID.resolve(canister: .managementCanister, method: "stop_canister", arg: [1, 2]) }
    }

    @Test func replicaStatus() throws {
        let body = try CBOR.map([("ic_api_version", "0.18.0"), ("root_key", .bytes(ICRootKey.mainnetDER)), ("impl_version", "0.9.0"),
                                 ("replica_health_status", "healthy"), ("certified_height", 25)]).selfDescribed.encoded()
        let status = try ReplicaStatus(decoding: body)
        #expect(status.apiVersion == "0.18.0" && status.healthStatus == "healthy" && status.certifiedHeight == 25)
        #expect(try ICRootKey(der: try #require(status.rootKey)).isMainnet)
        #expect(try ReplicaStatus(decoding: try CBOR.map([("ic_api_version", "0.18.0")]).encoded()).rootKey == nil)
        expectICError(.malformed, "not a map") { _ = try ReplicaStatus(decoding: try CBOR.array([]).encoded()) }
    }
}

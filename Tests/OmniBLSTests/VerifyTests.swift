import Foundation
import Testing
import OmniTestSupport
@testable import OmniBLS

/// Full verifications: IC known answers, real mainnet certificate signatures, the generated corpus, keys, batches.
@Suite(.vectors("bls", "ic")) struct VerifyTests {
    /// Verifies and folds refusals into the verdict, keeping the error for reason checks.
    static func outcome(sig: [UInt8], pk: [UInt8], msg: [UInt8]) -> Result<BLSVerification, BLSError> {
        do throws(BLSError) {
            return .success(try BLS.verify(signature: sig, publicKey: pk, message: msg))
        } catch {
            return .failure(error)
        }
    }

    /// The same through a decoded key (when the key decodes), which must agree with the byte path.
    static func outcomeWithDecodedKey(sig: [UInt8], pk: [UInt8], msg: [UInt8]) -> Result<BLSVerification, BLSError> {
        do throws(BLSError) {
            let key = try BLSPublicKey(compressed: pk)
            return .success(try BLS.verify(signature: sig, publicKey: key, message: msg))
        } catch {
            return .failure(error)
        }
    }

    static func isValid(_ result: Result<BLSVerification, BLSError>) -> Bool {
        if case .success(.valid) = result { return true }
        return false
    }

    @Test("ic_bls_known_answers: the 13 IC-ciphersuite cases with their expected reasons")
    func icKnownAnswers() throws {
        let file = "bls/ic_bls_known_answers.json"
        let document = try loadObject(file)
        #expect(Array(try string(document, "dst").utf8) == BLS.icDST)
        #expect(bytes(hex: try string(document, "ic_bls_der_prefix")) == BLS.icPublicKeyDERPrefix)
        let reasons: [String: String] = [
            "swapped_sig_1": "pairing_check_failed", "swapped_sig_2": "pairing_check_failed",
            "agentjs_hallo": "pairing_check_failed", "drand_quicknet_round_1000_sig_for_round_1001": "pairing_check_failed",
            "sig_not_a_valid_point": "signature:not_in_subgroup", "pk_not_a_valid_point": "public_key:not_on_curve",
            "identity_pk_and_identity_sig": "signature:identity",
        ]
        var checked = 0
        for vector in try array(document, "cases") {
            let name = try string(vector, "name")
            let sig = bytes(hex: try string(vector, "sig")), pk = bytes(hex: try string(vector, "pk"))
            let msg = bytes(hex: try string(vector, "msg"))
            let valid = try #require(vector["valid"] as? Bool)
            let result = Self.outcome(sig: sig, pk: pk, msg: msg)
            #expect(Self.isValid(result) == valid, "\(name): \(result)")
            #expect(Self.isValid(Self.outcomeWithDecodedKey(sig: sig, pk: pk, msg: msg)) == valid, "\(name) (decoded key)")
            if !valid {
                let reason: String
                switch result {
                case .success(.invalid(let why)): reason = why.rawValue
                case .failure(let error): reason = "\(error.subject.rawValue):\(error.kind.rawValue)"
                case .success(.valid): reason = "valid"
                }
                #expect(reason == reasons[name], "\(name)")
            }
            checked += 1
        }
        #expect(checked == 13)
        report(file, checked)
    }

    @Test("ic_bls_known_answers: the full mainnet certificate (delegation signed by the root key, tree by the subnet)")
    func mainnetCertificate() throws {
        let document = try loadObject("bls/ic_bls_known_answers.json")
        let certificate = try #require(document["end_to_end_certificate"] as? JSONObject)
        let cbor = bytes(hex: try string(certificate, "certificate_cbor"))
        let rootKey = try BLSPublicKey(der: bytes(hex: try string(certificate, "root_key_der")))
        #expect(rootKey.der == bytes(hex: try string(document, "ic_root_key_der")))
        let subnetKeyDER = bytes(hex: try string(certificate, "subnet_public_key_der"))
        #expect(cbor.firstRange(of: subnetKeyDER) != nil, "the subnet key comes from the delegation tree")
        let subnetKey = try BLSPublicKey(der: subnetKeyDER)
        let statePrefix = [0x0d] + Array("ic-state-root".utf8)
        let delegationMessage = bytes(hex: try string(certificate, "delegation_signed_message"))
        let message = bytes(hex: try string(certificate, "signed_message"))
        #expect(delegationMessage == statePrefix + bytes(hex: try string(certificate, "delegation_tree_root_hash")))
        #expect(message == statePrefix + bytes(hex: try string(certificate, "tree_root_hash")))
        // Both signatures sit in the CBOR as map key "signature" (text of 9) followed by a 48-byte byte string.
        let marker = [0x69] + Array("signature".utf8) + [0x58, 0x30]
        let signatures = cbor.ranges(of: marker).map { Array(cbor[$0.upperBound..<$0.upperBound + 48]) }
        #expect(signatures.count == 2)
        let outer = try #require(signatures.first), inner = try #require(signatures.last)
        #expect(try BLS.verify(signature: inner, publicKey: rootKey, message: delegationMessage) == .valid)
        #expect(try BLS.verify(signature: outer, publicKey: subnetKey, message: message) == .valid)
        #expect(try BLS.verify(signature: outer, publicKey: rootKey, message: message) == .invalid(.pairingCheckFailed))
        #expect(try BLS.verify(signature: inner, publicKey: subnetKey, message: delegationMessage) == .invalid(.pairingCheckFailed))
        report("bls/ic_bls_known_answers.json (end_to_end_certificate)", 4)
    }

    @Test("ic/bls_signatures.json: 10 real mainnet certificate signatures and 2 negative cases")
    func icMainnetSignatures() throws {
        let file = "ic/bls_signatures.json"
        var checked = 0, valid = 0
        for vector in try array(try loadObject(file), "vectors") {
            let id = try string(vector, "id")
            let expected = try string(vector, "expected") == "valid"
            let sig = bytes(hex: try string(vector, "signature_g1_hex"))
            let pk = bytes(hex: try string(vector, "public_key_g2_hex"))
            let msg = bytes(hex: try string(vector, "message_hex"))
            let result = Self.outcome(sig: sig, pk: pk, msg: msg)
            #expect(Self.isValid(result) == expected, "\(id): \(result)")
            #expect(Self.isValid(Self.outcomeWithDecodedKey(sig: sig, pk: pk, msg: msg)) == expected, "\(id)")
            if expected { #expect(msg.count == 46 && msg.starts(with: [0x0d] + Array("ic-state-root".utf8)), "\(id)") }
            checked += 1
            valid += expected ? 1 : 0
        }
        #expect(checked == 12 && valid == 10)
        report(file, checked)
    }

    /// The refusal each generated kind must produce ("subject:kind"; nil = pairing check failure; "*" = any refusal).
    static let generatedExpectations: [String: String?] = [
        "wrong_msg": nil, "wrong_key": nil, "msg_bitflip": nil, "sig_negated": nil,
        "sig_not_on_curve": "signature:not_on_curve", "pk_not_on_curve": "public_key:not_on_curve",
        "sig_not_in_subgroup": "signature:not_in_subgroup", "pk_not_in_subgroup": "public_key:not_in_subgroup",
        "sig_plus_torsion": "signature:not_in_subgroup", "pk_plus_torsion": "public_key:not_in_subgroup",
        "sig_infinity": "signature:identity", "pk_and_sig_infinity": "signature:identity",
        "sig_noncanonical_x": "signature:non_canonical", "pk_noncanonical_c0": "public_key:non_canonical",
        "sig_uncompressed_flag": "signature:not_compressed", "sig_bad_infinity_encoding": "signature:bad_infinity_encoding",
        "sig_bitflip": "*", "pk_bitflip": "*", "wrong_length": "*",
    ]

    @Test("ic_bls_generated_seed20260101_n10.jsonl: all 209 labelled lines, with reasons per kind")
    func generatedCorpus() throws {
        let file = "bls/ic_bls_generated_seed20260101_n10.jsonl"
        let lines = try Vectors.text(file).split(separator: "\n")
        var checked = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? JSONObject)
            let kind = try string(object, "case")
            let sig = bytes(hex: try string(object, "sig")), pk = bytes(hex: try string(object, "pk"))
            let msg = bytes(hex: try string(object, "msg"))
            let valid = try #require(object["valid"] as? Bool)
            let result = Self.outcome(sig: sig, pk: pk, msg: msg)
            #expect(Self.isValid(result) == valid, "\(kind) line \(checked + 1): \(result)")
            if !valid {
                let expectation = try #require(Self.generatedExpectations[kind], "unknown kind \(kind)")
                switch result {
                case .success(.invalid): #expect(expectation == nil, "\(kind): pairing failure, expected \(expectation ?? "")")
                case .failure(let error):
                    if expectation != "*" {
                        #expect("\(error.subject.rawValue):\(error.kind.rawValue)" == expectation, "\(kind): \(error)")
                    }
                case .success(.valid): break
                }
            }
            checked += 1
        }
        #expect(checked == 209)
        report(file, checked)
    }

    @Test("Lengths, DER wrapping and the identity key are refused with specific reasons")
    func inputRefusals() throws {
        let document = try loadObject("bls/ic_bls_known_answers.json")
        let rootDER = bytes(hex: try string(document, "ic_root_key_der"))
        let root = try BLSPublicKey(der: rootDER)
        #expect(root.compressed == Array(rootDER.suffix(96)))
        var badPrefix = rootDER
        badPrefix[5] ^= 1
        #expect(throws: BLSError(.badDERPrefix, .publicKey, offset: 5)) { try BLSPublicKey(der: badPrefix) }
        #expect(throws: BLSError.self) { try BLSPublicKey(der: Array(rootDER.dropLast())) }
        let identityKey = [0xc0] + [UInt8](repeating: 0, count: 95)
        #expect(throws: BLSError(.identity, .publicKey)) { try BLSPublicKey(compressed: identityKey) }
        let sig = [UInt8](repeating: 0x80, count: 48)
        #expect(throws: BLSError(.wrongLength, .signature, detail: "47 bytes, expected 48")) {
            try BLS.verify(signature: Array(sig.prefix(47)), publicKey: root.compressed, message: [])
        }
        #expect(throws: BLSError(.wrongLength, .publicKey, detail: "97 bytes, expected 96")) {
            try BLS.verify(signature: BLSG1Point.generator.compressed, publicKey: root.compressed + [0], message: [])
        }
        #expect(!BLS.isValid(signature: sig, publicKey: root.compressed, message: []))
    }

    @Test("Batch verification: all valid, one forged, one malformed")
    func batch() throws {
        let document = try loadObject("bls/ic_bls_known_answers.json")
        var items: [BLSBatchItem] = []
        for vector in try array(document, "cases") where vector["valid"] as? Bool == true {
            items.append(BLSBatchItem(signature: bytes(hex: try string(vector, "sig")),
                                      publicKey: try BLSPublicKey(compressed: bytes(hex: try string(vector, "pk"))),
                                      message: bytes(hex: try string(vector, "msg"))))
        }
        #expect(items.count == 6)
        // One verdict per item, in order: an empty or short result must not pass as "all valid".
        let verdicts = BLS.verifyBatch(items)
        #expect(verdicts.count == items.count)
        #expect(verdicts.filter { (try? $0.get()) == .valid }.count == 6)
        var mixed = items
        mixed[2].message.append(0)
        mixed[4].signature[0] &= 0x7f
        let results = BLS.verifyBatch(mixed)
        #expect(results.count == mixed.count)
        #expect(results.filter { (try? $0.get()) == .valid }.count == 4)
        for (index, result) in results.enumerated() {
            switch index {
            case 2: #expect((try? result.get()) == .invalid(.pairingCheckFailed))
            case 4: #expect(throws: BLSError(.notCompressed, .signature, offset: 0)) { try result.get() }
            default: #expect((try? result.get()) == .valid, "item \(index)")
            }
        }
        #expect(BLS.verifyBatch([]).isEmpty)
        #expect(BLS.verifyBatch([items[0]]).map { try? $0.get() } == [.valid])
        #expect(BLS.verifyBatch([mixed[2], items[0]]).map { try? $0.get() } == [.invalid(.pairingCheckFailed), .valid])
    }
}


import Foundation
import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// The signing host's derivations (TrUAPI reference §7) against every vector of `truapi/crypto.json`: index bytes,
/// junction chain codes, root, product-subtree, product and identity keys, SS58, product entropy, ring-VRF entropy,
/// preimage keys, v4 signing preimages and the `<Bytes>` wrapping of sign_raw. A vector this suite does not know
/// fails it, so a vector added upstream cannot go unchecked.
@Suite("sr25519: signing-host derivations (truapi/crypto.json)", .vectors("truapi/crypto.json"))
struct Sr25519SigningHostTests {
    static func vectors() throws -> [[String: Any]] {
        let root = try #require(try Vectors.json("truapi/crypto.json") as? [String: Any])
        return try #require(root["vectors"] as? [[String: Any]])
    }

    static func string(_ object: [String: Any]?, _ key: String) throws -> String {
        try #require(object?[key] as? String, "vector field \(key) missing")
    }

    static func bytes(_ object: [String: Any]?, _ key: String) throws -> [UInt8] {
        try Hex.decode(try string(object, key))
    }

    static func optionalBytes(_ object: [String: Any]?, _ key: String) throws -> [UInt8]? {
        guard let text = object?[key] as? String else { return nil }
        return try Hex.decode(text)
    }

    @Test func everyVector() throws {
        var checked: [String] = []
        for vector in try Self.vectors() {
            let name = try Self.string(vector, "name")
            let inputs = vector["inputs"] as? [String: Any]
            let expected = vector["expected"] as? [String: Any]
            let context: Comment = "vector \(name)"
            switch name {
            case "index_bytes_0":
                let index = try #require(inputs?["index"] as? Int)
                #expect(SigningHost.AccountIndex.index(UInt32(index)).chainCode.bytes == (try Self.bytes(expected, "hex")), context)
            case let name where name.hasPrefix("chain_code_"):
                let chainCode = Sr25519.ChainCode(junction: try Self.string(inputs, "junction")).bytes
                if let full = expected?["full_hex"] as? String {
                    #expect(chainCode == (try Hex.decode(full)), context)
                    #expect(Array(chainCode.prefix(8)) == (try Self.bytes(expected, "first8_hex")), context)
                } else {
                    #expect(chainCode == (try Self.bytes(expected, "hex")), context)
                }
            case "root_public_key_from_entropy":
                let root = try SigningHost.rootKeypair(entropy: Self.bytes(inputs, "entropy_hex"))
                #expect(root.publicKey.rawRepresentation == (try Self.bytes(expected, "public_key_hex")), context)
            case "product_subtree_public_key_myapp":
                let root = try SigningHost.rootKeypair(entropy: Self.bytes(inputs, "entropy_hex"))
                let subtree = SigningHost.productSubtree(root: root, productID: "myapp.dot")
                #expect(subtree.publicKey.rawRepresentation == (try Self.bytes(expected, "public_key_hex")), context)
                #expect(root.derived(try Sr25519.Junction.parsePath(try Self.string(inputs, "path"))).publicKey == subtree.publicKey, context)
            case "product_account_public_key_myapp_index0":
                let root = try SigningHost.rootKeypair(entropy: Self.bytes(inputs, "entropy_hex"))
                let productID = try Self.string(inputs, "product_id")
                let index = try #require((inputs?["derivation_index"] as? [String: Any])?["Index"] as? Int)
                let account = SigningHost.productAccount(root: root, productID: productID, index: .index(UInt32(index)))
                let expectedKey = try Self.bytes(expected, "public_key_hex")
                #expect(account.publicKey.rawRepresentation == expectedKey, context)
                // The public path from the subtree key reaches the same account (the vector's note).
                let subtree = SigningHost.productSubtree(root: root, productID: productID).publicKey
                #expect(SigningHost.productAccountPublicKey(subtree: subtree, index: .index(UInt32(index))).rawRepresentation == expectedKey, context)
                #expect(try SS58.encode(expectedKey, prefix: 42) == (try Self.string(expected, "ss58_prefix42")), context)
                #expect(try SS58.decode(try Self.string(expected, "ss58_prefix42")).payload == expectedKey, context)
            case "identity_uid_dot_public_key":
                let root = try SigningHost.rootKeypair(entropy: Self.bytes(inputs, "entropy_hex"))
                #expect(SigningHost.identityAccount(root: root).publicKey.rawRepresentation == (try Self.bytes(expected, "public_key_hex")), context)
            case let name where name.hasPrefix("product_entropy_"):
                let derived = try SigningHost.productEntropy(entropy: Self.bytes(inputs, "entropy_secret_hex"),
                                                             productID: Self.string(inputs, "product_id"), key: Self.bytes(inputs, "key_hex"))
                #expect(derived == (try Self.bytes(expected, "entropy_hex")), context)
            case "ring_vrf_root":
                #expect(SigningHost.ringVRFRoot(rootEntropy: try Self.bytes(inputs, "root_entropy_hex")) == (try Self.bytes(expected, "hex")), context)
            case "full_person_ring_vrf_entropy", "lite_person_ring_vrf_entropy":
                let ringRoot = SigningHost.ringVRFRoot(rootEntropy: try Self.bytes(inputs, "root_entropy_hex"))
                let index: UInt32 = name.hasPrefix("full") ? 0 : 1
                #expect(SigningHost.personRingVRFEntropy(ringRoot: ringRoot, index: index) == (try Self.bytes(expected, "hex")), context)
            case "preimage_key_empty":
                #expect(SigningHost.preimageKey(try Self.bytes(inputs, "value_hex")) == (try Self.bytes(expected, "key_hex")), context)
            case let name where name.hasPrefix("sign_payload_preimage_"):
                let payload = SigningHost.PayloadV4(
                    method: try Self.bytes(inputs, "method"), era: try Self.bytes(inputs, "era"), nonce: try Self.bytes(inputs, "nonce"),
                    tip: try Self.bytes(inputs, "tip"), specVersion: try Self.bytes(inputs, "spec_version"),
                    transactionVersion: try Self.bytes(inputs, "transaction_version"), genesisHash: try Self.bytes(inputs, "genesis_hash"),
                    blockHash: try Self.bytes(inputs, "block_hash"), assetID: try Self.optionalBytes(inputs, "asset_id"),
                    metadataHash: try Self.optionalBytes(inputs, "metadata_hash"), mode: (inputs?["mode"] as? Int).map { UInt8($0) },
                    signedExtensions: try #require(inputs?["signed_extensions"] as? [String]))
                #expect(try #require(inputs?["version"] as? Int) == 4, context)
                #expect(try payload.preimage() == (try Self.bytes(expected, "preimage_hex")), context)
            case "sign_raw_message_wrapping":
                try checkSignRawCases(try #require(inputs?["cases"] as? [[String: Any]]))
            default:
                Issue.record("crypto.json vector \(name) is not checked by this suite")
                continue
            }
            checked.append(name)
        }
        #expect(checked.count == (try Self.vectors()).count)
        #expect(checked.count >= 23)
    }

    /// Each case's payload maps to the spelled-out wrapped message, and the signature of it verifies (in omni and
    /// in schnorrkel) as an sr25519 signature with context "substrate"; bad hex after 0x is an error.
    func checkSignRawCases(_ cases: [[String: Any]]) throws {
        let keypair = Sr25519.Keypair()
        var requests: [JSONValue] = []
        for testCase in cases {
            let payloadObject = try #require(testCase["payload"] as? [String: Any])
            let payload: SigningHost.RawPayload = if let bytes = payloadObject["Bytes"] as? String {
                .bytes(try Hex.decode(bytes))
            } else {
                .text(try #require(payloadObject["Payload"] as? String))
            }
            if testCase["error"] != nil {
                let error = caughtError { () throws(CryptoError) in _ = try SigningHost.signRaw(payload, with: keypair) }
                #expect(error?.kind == .invalidInput, "\(payloadObject)")
                #expect(error?.message.contains("not a hex digit") == true)
                continue
            }
            let expected: [UInt8] = if let text = testCase["signed_message_utf8"] as? String { Array(text.utf8) } else {
                try Self.bytes(testCase, "signed_message_hex")
            }
            #expect(SigningHost.wrappedRawMessage(try SigningHost.rawPayloadBytes(payload)) == expected, "\(payloadObject)")
            let signature = try SigningHost.signRaw(payload, with: keypair)
            #expect(signature.count == 64)
            #expect(try keypair.publicKey.isValidSignature(signature, for: expected, context: Sr25519.substrateContext))
            requests.append(["op": "verify", "public": .string(keypair.publicKey.rawRepresentation.hexString),
                             "message": .string(expected.hexString), "signature": .string(signature.hexString)])
        }
        for response in try Sr25519Peer.run(requests) {
            #expect(try response.bool("valid"), "schnorrkel rejects a sign_raw signature")
        }
    }

    /// Beyond the vectors: a preimage over 256 bytes is signed through its BLAKE2b-256, the signature travels as a
    /// MultiSignature, the signed extrinsic has the v4 layout, and unknown extensions and bad keys are refused.
    @Test func payloadSigningAndExtrinsic() throws {
        let keypair = Sr25519.Keypair()
        var payload = SigningHost.PayloadV4(method: [UInt8](repeating: 0x4d, count: 300), era: [0x00], nonce: [0x04], tip: [0x00],
                                            specVersion: [1, 0, 0, 0], transactionVersion: [2, 0, 0, 0],
                                            genesisHash: [UInt8](repeating: 0x61, count: 32), blockHash: [UInt8](repeating: 0x62, count: 32),
                                            signedExtensions: ["CheckNonZeroSender", "CheckSpecVersion", "CheckTxVersion", "CheckGenesis",
                                                               "CheckMortality", "CheckNonce", "CheckWeight", "ChargeTransactionPayment"])
        let preimage = try payload.preimage()
        #expect(preimage.count == 300 + 3 + 72)
        #expect(SigningHost.signedBytes(ofPreimage: preimage) == BLAKE2b.hash256(preimage))
        #expect(SigningHost.signedBytes(ofPreimage: Array(preimage.prefix(256))) == Array(preimage.prefix(256)))
        let multiSignature = try SigningHost.signPayloadV4(payload, with: keypair)
        #expect(multiSignature.count == 65 && multiSignature[0] == 0x01)
        #expect(try keypair.publicKey.isValidSignature(multiSignature.dropFirst(), for: BLAKE2b.hash256(preimage)))

        let (extra, _) = try payload.encodedExtensions()
        #expect(extra == [0x00, 0x04, 0x00])
        let call = [UInt8](repeating: 0x05, count: 40)
        let extrinsic = try SigningHost.signedExtrinsicV4(signer: keypair.publicKey, signature: Array(multiSignature.dropFirst()),
                                                         extra: extra, call: call)
        let bodyCount = 1 + 33 + 65 + extra.count + call.count
        // 142 bytes: the two-byte compact mode ((142 << 2) | 1, little-endian).
        #expect(Array(extrinsic.prefix(2)) == [UInt8((bodyCount << 2 | 1) & 0xff), UInt8((bodyCount << 2) >> 8)])
        #expect(extrinsic.count == 2 + bodyCount)
        #expect(Array(extrinsic[2..<4]) == [0x84, 0x00])
        #expect(Array(extrinsic[4..<36]) == keypair.publicKey.rawRepresentation)
        #expect(extrinsic[36] == 0x01)
        #expect(Array(extrinsic.suffix(call.count)) == call)

        payload.signedExtensions.append("CheckSomethingNew")
        #expect(caughtError { () throws(CryptoError) in _ = try payload.preimage() }?.message == "signed extension 9 'CheckSomethingNew' is not supported")
        payload.signedExtensions = ["CheckMetadataHash"]
        payload.metadataHash = [1, 2, 3]
        #expect(caughtError { () throws(CryptoError) in _ = try payload.preimage() }?.message == "metadata hash must be 32 bytes, got 3")
        for key in [[UInt8](), [UInt8](repeating: 1, count: 33)] {
            let error = caughtError { () throws(CryptoError) in _ = try SigningHost.productEntropy(entropy: [1], productID: "a.dot", key: key) }
            #expect(error?.message == "entropy key must be 1…32 bytes, got \(key.count)")
        }
        #expect(caughtError { () throws(CryptoError) in _ = try SigningHost.rootKeypair(entropy: [UInt8](repeating: 1, count: 15)) }?.kind == .invalidInput)
    }
}

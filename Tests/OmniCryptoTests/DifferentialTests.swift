import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// Differential tests against Python `cryptography`/hashlib through Tests/Peers/crypto_peer.py: one peer
/// process per test, all requests in one batch. Inputs come from a fresh seed printed with every failure.
@Suite("Differential: Swift vs Python cryptography", .serialized, .offPool)
struct DifferentialTests {
    /// Flips one random bit of `bytes`.
    static func tampered(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var copy = bytes
        let index = Int.random(in: 0..<copy.count, using: &random)
        copy[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
        return copy
    }

    static func hashName(_ algorithm: DigestAlgorithm) -> String { algorithm.rawValue.lowercased() }

    @Test(arguments: ECDSA.Curve.allCases)
    func ecdsaBothWays(_ curve: ECDSA.Curve) throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed), curve \(curve.rawValue)"
        let hash = curve.defaultDigest
        let swiftKey = try ECDSA.PrivateKey(curve: curve)
        let pythonScalar = random.scalar(for: curve)
        let messages = (0..<4).map { _ in random.bytes(in: 0...200) }

        var requests: [JSONValue] = []
        var expectedValidity: [(request: Int, valid: Bool, label: String)] = []
        func verifyRequest(_ signature: [UInt8], _ format: ECDSA.SignatureFormat, message: [UInt8]? = nil,
                           digest: [UInt8]? = nil, valid: Bool, label: String) {
            var request = JSONObject([("op", "ecdsa_verify"), ("curve", .string(curve.rawValue)),
                                      ("spki_der", .string(swiftKey.publicKey.derRepresentation.hexString)),
                                      ("hash", .string(Self.hashName(hash))), ("signature", .string(signature.hexString)),
                                      ("format", .string(format == .der ? "der" : "raw"))])
            if let message { request["message"] = .string(message.hexString) }
            if let digest {
                request["digest"] = .string(digest.hexString)
                request["prehashed"] = true
            }
            expectedValidity.append((requests.count, valid, label))
            requests.append(.object(request))
        }
        // Swift signs (lowS on secp256k1, as the IC requires) → Python verifies, and rejects tampered copies.
        for (index, message) in messages.enumerated() {
            for format in [ECDSA.SignatureFormat.der, .raw] {
                let signature = try swiftKey.signature(for: message, format: format, lowS: curve == .secp256k1)
                verifyRequest(signature, format, message: message, valid: true, label: "Swift \(format) signature \(index)")
                verifyRequest(Self.tampered(signature, &random), format, message: message, valid: false,
                              label: "tampered Swift \(format) signature \(index)")
            }
        }
        let digest = hash.hash(messages[0])
        verifyRequest(try swiftKey.signature(forDigest: digest, format: .raw), .raw, digest: digest, valid: true,
                      label: "Swift signature over a digest")
        // Python signs with a key from the seed → Swift verifies and loads Python's PEM keys.
        let signRequestsStart = requests.count
        for message in messages {
            requests.append(["op": "ecdsa_sign", "curve": .string(curve.rawValue), "scalar": .string(pythonScalar.hexString),
                             "message": .string(message.hexString), "hash": .string(Self.hashName(hash))])
        }
        requests.append(["op": "ecdsa_sign", "curve": .string(curve.rawValue), "scalar": .string(pythonScalar.hexString),
                         "digest": .string(digest.hexString), "prehashed": true, "hash": .string(Self.hashName(hash))])

        let responses = try CryptoPeer.run(requests)
        for expectation in expectedValidity {
            let response = responses[expectation.request]
            #expect(response.isOK, "\(context): \(response.serialized())")
            #expect(try response.bool("valid") == expectation.valid, "\(context): Python on \(expectation.label)")
        }

        let pythonPublic = try ECDSA.PublicKey(derRepresentation: responses[signRequestsStart].bytes("spki_der"))
        #expect(try pythonPublic.uncompressedRepresentation == responses[signRequestsStart].bytes("point_uncompressed"), context)
        #expect(try pythonPublic.compressedRepresentation == responses[signRequestsStart].bytes("point_compressed"), context)
        #expect(try pythonPublic.derRepresentation == responses[signRequestsStart].bytes("spki_der"), context)
        #expect(try ECDSA.PublicKey(pointRepresentation: responses[signRequestsStart].bytes("point_compressed"), curve: curve) == pythonPublic, context)
        for (offset, message) in messages.enumerated() {
            let response = responses[signRequestsStart + offset]
            #expect(response.isOK, "\(context): \(response.serialized())")
            let der = try response.bytes("sig_der"), raw = try response.bytes("sig_raw")
            #expect(try pythonPublic.isValidSignature(der, for: message, format: .der), context)
            #expect(try pythonPublic.isValidSignature(raw, for: message, format: .raw), context)
            #expect(try ECDSA.Signature(derRepresentation: der, curve: curve).rawRepresentation == raw, context)
            #expect((try? pythonPublic.isValidSignature(Self.tampered(der, &random), for: message, format: .der)) != true, context)
            #expect((try? pythonPublic.isValidSignature(Self.tampered(raw, &random), for: message, format: .raw)) != true, context)
            for pem in [try response.string("pem_pkcs8"), try response.string("pem_sec1")] {
                let loaded = try ECDSA.PrivateKey(pemRepresentation: pem)
                #expect(loaded.publicKey == pythonPublic, context)
                #expect(loaded.rawRepresentation == pythonScalar, context)
            }
        }
        let prehashed = responses[requests.count - 1]
        #expect(try pythonPublic.isValidSignature(prehashed.bytes("sig_der"), forDigest: digest), context)
    }

    @Test func ed25519BothWays() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let swiftKey = try Ed25519.PrivateKey(seed: random.bytes(32))
        let pythonSeed = random.bytes(32)
        let messages = (0..<6).map { _ in random.bytes(in: 0...300) }
        var requests: [JSONValue] = []
        var expectedValidity: [Bool] = []
        for message in messages {
            let signature = swiftKey.signature(for: message)
            for (candidate, valid) in [(signature, true), (Self.tampered(signature, &random), false)] {
                requests.append(["op": "ed25519_verify", "public": .string(swiftKey.publicKey.rawRepresentation.hexString),
                                 "message": .string(message.hexString), "signature": .string(candidate.hexString)])
                expectedValidity.append(valid)
            }
        }
        for message in messages {
            requests.append(["op": "ed25519_sign", "seed": .string(pythonSeed.hexString), "message": .string(message.hexString)])
        }
        let responses = try CryptoPeer.run(requests)
        for (index, valid) in expectedValidity.enumerated() {
            #expect(try responses[index].bool("valid") == valid, "\(context): request \(index)")
        }
        let pythonKey = try Ed25519.PrivateKey(seed: pythonSeed)
        for (offset, message) in messages.enumerated() {
            let response = responses[expectedValidity.count + offset]
            #expect(try response.bytes("public") == pythonKey.publicKey.rawRepresentation, context)
            #expect(try response.bytes("spki_der") == pythonKey.publicKey.derRepresentation, context)
            let signature = try response.bytes("signature")
            // Ed25519 is deterministic: Swift's signature must be byte-identical.
            #expect(signature == pythonKey.signature(for: message), context)
            #expect(try pythonKey.publicKey.isValidSignature(signature, for: message), context)
            #expect(try !pythonKey.publicKey.isValidSignature(Self.tampered(signature, &random), for: message), context)
            #expect(try Ed25519.PrivateKey(pemRepresentation: response.string("pem_pkcs8")).seed == pythonSeed, context)
        }
    }

    @Test func x25519BothWays() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let pairs = (0..<6).map { _ in (try! X25519.PrivateKey(rawRepresentation: random.bytes(32)), random.bytes(32)) }
        var requests: [JSONValue] = pairs.map { swift, pythonPrivate in
            ["op": "x25519", "private": .string(pythonPrivate.hexString),
             "peer_public": .string(swift.publicKey.rawRepresentation.hexString)]
        }
        // A small-order peer key: both sides must refuse the all-zero result.
        requests.append(["op": "x25519", "private": .string(random.bytes(32).hexString), "peer_public": .string(String(repeating: "0", count: 64))])
        let responses = try CryptoPeer.run(requests)
        for (index, (swiftKey, pythonPrivate)) in pairs.enumerated() {
            let response = responses[index]
            let pythonPublic = try X25519.PublicKey(rawRepresentation: response.bytes("public"))
            #expect(try X25519.PrivateKey(rawRepresentation: pythonPrivate).publicKey == pythonPublic, context)
            #expect(try swiftKey.sharedSecret(with: pythonPublic) == response.bytes("shared"), context)
        }
        #expect(responses[pairs.count]["refused"] == "small_order", "\(context): \(responses[pairs.count].serialized())")
        #expect(throws: CryptoError.self) {
            try X25519.PrivateKey().sharedSecret(with: X25519.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32)))
        }
    }

    /// HKDF (both hashes), HMAC, PBKDF2 and BLAKE2b (any length, keyed or not) on random inputs.
    /// The peer's own failure fails the run: an operation it does not know is no refusal, and no "ok": false.
    @Test func peerFailureIsNotARefusal() throws {
        #expect(throws: TestSupportError.self) { _ = try CryptoPeer.run([["op": "no_such_operation"]]) }
        #expect(throws: TestSupportError.self) {
            _ = try CryptoPeer.run([["op": "chacha_open", "key": "00", "nonce": "00", "aad": "", "sealed": "00"]])
        }
    }

    @Test func kdfsAndHashesOnRandomInputs() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        var requests: [JSONValue] = []
        var expected: [(key: String, value: [UInt8])] = []
        for round in 0..<16 {
            let hash: DigestAlgorithm = round.isMultiple(of: 2) ? .sha256 : .sha512
            let ikm = random.bytes(in: 0...100), salt = random.bytes(in: 0...100), info = random.bytes(in: 0...100)
            let length = Int.random(in: 1...(255 * hash.byteCount), using: &random)
            let okm = hash == .sha256
                ? try HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length)
                : try HKDF<SHA512>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length)
            requests.append(["op": "hkdf", "hash": .string(Self.hashName(hash)), "ikm": .string(ikm.hexString),
                             "salt": .string(salt.hexString), "info": .string(info.hexString), "length": .int(length)])
            expected.append(("okm", okm))

            let key = random.bytes(in: 0...200), data = random.bytes(in: 0...300)
            let mac = switch round % 3 {
            case 0: HMAC<SHA256>.authenticationCode(for: data, key: key)
            case 1: HMAC<SHA384>.authenticationCode(for: data, key: key)
            default: HMAC<SHA512>.authenticationCode(for: data, key: key)
            }
            let macHash = ["sha256", "sha384", "sha512"][round % 3]
            requests.append(["op": "hmac", "hash": .string(macHash), "key": .string(key.hexString), "data": .string(data.hexString)])
            expected.append(("mac", mac))

            let password = random.bytes(in: 0...40), pbkdfSalt = random.bytes(in: 0...40)
            let iterations = Int.random(in: 1...300, using: &random), pbkdfLength = Int.random(in: 1...100, using: &random)
            let derived = hash == .sha256
                ? try PBKDF2<SHA256>.deriveKey(password: password, salt: pbkdfSalt, iterations: iterations, outputByteCount: pbkdfLength)
                : try PBKDF2<SHA512>.deriveKey(password: password, salt: pbkdfSalt, iterations: iterations, outputByteCount: pbkdfLength)
            requests.append(["op": "pbkdf2", "hash": .string(Self.hashName(hash)), "password": .string(password.hexString),
                             "salt": .string(pbkdfSalt.hexString), "iterations": .int(iterations), "length": .int(pbkdfLength)])
            expected.append(("key", derived))

            let size = Int.random(in: 1...64, using: &random)
            let blakeKey = round < 4 ? [] : random.bytes(in: 1...64)
            let message = random.bytes(in: 0...400)
            requests.append(["op": "blake2b", "data": .string(message.hexString), "size": .int(size), "key": .string(blakeKey.hexString)])
            expected.append(("digest", try BLAKE2b.hash(message, outputByteCount: size, key: blakeKey)))
        }
        let responses = try CryptoPeer.run(requests)
        for (index, (key, value)) in expected.enumerated() {
            #expect(try responses[index].bytes(key) == value, "\(context): request \(requests[index].serialized())")
        }
    }

    @Test func chachaPolyBothWays() throws {
        var random = SeededGenerator()
        let context: Comment = "seed \(random.seed)"
        let lengths = [0, 1, 15, 16, 63, 64, 65] + (0..<5).map { _ in Int.random(in: 0...1000, using: &random) }
        struct Case { let key, nonce, aad, plaintext, sealed: [UInt8] }
        var cases: [Case] = []
        var requests: [JSONValue] = []
        for length in lengths {
            let key = random.bytes(32), nonce = random.bytes(12), aad = random.bytes(in: 0...50), plaintext = random.bytes(length)
            let sealed = try ChaChaPoly.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
            cases.append(Case(key: key, nonce: nonce, aad: aad, plaintext: plaintext, sealed: sealed))
            let common: [(String, JSONValue)] = [("key", .string(key.hexString)), ("nonce", .string(nonce.hexString)),
                                                 ("aad", .string(aad.hexString))]
            requests.append(.object(JSONObject([("op", "chacha_open"), ("sealed", .string(sealed.hexString))] + common)))
            requests.append(.object(JSONObject([("op", "chacha_open"), ("sealed", .string(Self.tampered(sealed, &random).hexString))] + common)))
            requests.append(.object(JSONObject([("op", "chacha_seal"), ("plaintext", .string(plaintext.hexString))] + common)))
        }
        let responses = try CryptoPeer.run(requests)
        for (index, item) in cases.enumerated() {
            let opened = responses[3 * index], tamperedOpen = responses[3 * index + 1], pythonSealed = responses[3 * index + 2]
            #expect(try opened.bytes("plaintext") == item.plaintext, "\(context): Python opens Swift's box \(index)")
            #expect(!tamperedOpen.isOK && tamperedOpen["refused"] == "InvalidTag",
                    "\(context): Python rejects a tampered box \(index): \(tamperedOpen.serialized())")
            let sealedByPython = try pythonSealed.bytes("sealed")
            #expect(sealedByPython == item.sealed, "\(context): same ciphertext for the same inputs \(index)")
            #expect(try ChaChaPoly.open(sealedByPython, key: item.key, nonce: item.nonce, authenticating: item.aad) == item.plaintext, context)
            let error = #expect(throws: CryptoError.self, context) {
                try ChaChaPoly.open(Self.tampered(sealedByPython, &random), key: item.key, nonce: item.nonce, authenticating: item.aad)
            }
            #expect(error?.kind == .verificationFailed, context)
        }
    }
}

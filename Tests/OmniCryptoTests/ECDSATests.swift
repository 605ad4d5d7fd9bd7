import Testing
import OmniCodec
import OmniCrypto

@Suite("ECDSA P-256 / P-384 / secp256k1 (OpenSSL)")
struct ECDSATests {
    /// d = 1 gives the generator G (SEC 2 §2.4.2, §2.5.1, §2.7.2 — the uncompressed base points).
    @Test(arguments: [
        (ECDSA.Curve.p256, "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
        (.p384, "04aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab73617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"),
        (.secp256k1, "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
    ])
    func scalarOneGivesGenerator(_ curve: ECDSA.Curve, _ generator: String) throws {
        let one = [UInt8](repeating: 0, count: curve.byteCount - 1) + [1]
        let key = try ECDSA.PrivateKey(rawRepresentation: one, curve: curve)
        #expect(key.publicKey.uncompressedRepresentation == hex(generator))
        #expect(key.rawRepresentation == one)
        let compressed = key.publicKey.compressedRepresentation
        #expect(compressed.count == curve.byteCount + 1)
        #expect(try ECDSA.PublicKey(pointRepresentation: compressed, curve: curve) == key.publicKey)
    }

    /// RFC 6979 Appendix A.2.5 (P-256, SHA-256) and A.2.6 (P-384, SHA-384), message "sample": the published
    /// deterministic signatures verify under the published keys (OpenSSL 3.0 itself signs with random nonces).
    @Test(arguments: [
        (ECDSA.Curve.p256, "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
         "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
         "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"),
        (.p384, "6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5",
         "04ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64def8f0ea9055866064a254515480bc138015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720",
         "94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c81a648152e44acf96e36dd1e80fabe4699ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8"),
    ])
    func rfc6979Signatures(_ curve: ECDSA.Curve, _ scalar: String, _ point: String, _ signature: String) throws {
        let key = try ECDSA.PrivateKey(rawRepresentation: hex(scalar), curve: curve)
        #expect(key.publicKey.uncompressedRepresentation == hex(point))
        let message = Array("sample".utf8)
        #expect(try key.publicKey.isValidSignature(hex(signature), for: message, format: .raw))
        let der = try ECDSA.Signature(rawRepresentation: hex(signature), curve: curve).derRepresentation
        #expect(try key.publicKey.isValidSignature(der, for: message, format: .der))
        #expect(try !key.publicKey.isValidSignature(hex(signature), for: Array("test".utf8), format: .raw))
    }

    @Test(arguments: ECDSA.Curve.allCases)
    func signAndVerifyAllForms(_ curve: ECDSA.Curve) throws {
        let key = try ECDSA.PrivateKey(curve: curve)
        let message = SecureRandom.bytes(77)
        for hash in [DigestAlgorithm.sha256, .sha384, .sha512] {
            for format in [ECDSA.SignatureFormat.der, .raw] {
                let signature = try key.signature(for: message, hashedWith: hash, format: format)
                if format == .raw { #expect(signature.count == 2 * curve.byteCount) }
                #expect(try key.publicKey.isValidSignature(signature, for: message, hashedWith: hash, format: format))
                #expect(try key.publicKey.isValidSignature(signature, forDigest: hash.hash(message), format: format))
                #expect(try !key.publicKey.isValidSignature(signature, for: message + [0], hashedWith: hash, format: format))
            }
        }
        // Signing a digest equals signing the message with that digest.
        let digest = SHA256.hash(message)
        let overDigest = try key.signature(forDigest: digest, format: .raw)
        #expect(try key.publicKey.isValidSignature(overDigest, for: message, hashedWith: .sha256, format: .raw))
        // Another key's signature does not verify.
        let other = try ECDSA.PrivateKey(curve: curve)
        #expect(try !other.publicKey.isValidSignature(key.signature(for: message), for: message))
    }

    @Test(arguments: ECDSA.Curve.allCases)
    func keyEncodingsRoundTrip(_ curve: ECDSA.Curve) throws {
        let key = try ECDSA.PrivateKey(curve: curve)
        #expect(key.rawRepresentation.count == curve.byteCount)
        for reloaded in [try ECDSA.PrivateKey(rawRepresentation: key.rawRepresentation, curve: curve),
                         try ECDSA.PrivateKey(pemRepresentation: key.pemRepresentation),
                         try ECDSA.PrivateKey(pemRepresentation: key.sec1PEMRepresentation),
                         try ECDSA.PrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation),
                         try ECDSA.PrivateKey(sec1DERRepresentation: key.sec1DERRepresentation)] {
            #expect(reloaded.curve == curve)
            #expect(reloaded.publicKey == key.publicKey)
            #expect(reloaded.rawRepresentation == key.rawRepresentation)
        }
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(key.sec1PEMRepresentation.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
        let publicKey = key.publicKey
        #expect(try ECDSA.PublicKey(derRepresentation: publicKey.derRepresentation) == publicKey)
        #expect(try ECDSA.PublicKey(pemRepresentation: publicKey.pemRepresentation) == publicKey)
        #expect(try ECDSA.PublicKey(pointRepresentation: publicKey.uncompressedRepresentation, curve: curve) == publicKey)
        #expect(try ECDSA.PublicKey(pointRepresentation: publicKey.compressedRepresentation, curve: curve) == publicKey)
        // SPKI with a compressed point is accepted and normalised.
        let compressedSPKI = spki(curve: curve, point: publicKey.compressedRepresentation)
        #expect(try ECDSA.PublicKey(derRepresentation: compressedSPKI) == publicKey)
    }

    /// The curve OIDs and algorithm identifier written out independently of the implementation (RFC 5480).
    func spki(curve: ECDSA.Curve, point: [UInt8]) -> [UInt8] {
        let curveOID: [UInt8] = switch curve {
        case .p256: hex("06082a8648ce3d030107")
        case .p384: hex("06052b81040022")
        case .secp256k1: hex("06052b8104000a")
        }
        let algorithm = hex("06072a8648ce3d0201") + curveOID
        let bitString = [0x03, UInt8(point.count + 1), 0x00] + point
        let inner = [0x30, UInt8(algorithm.count)] + algorithm + bitString
        return [0x30, UInt8(inner.count)] + inner
    }

    @Test func dfxStyleSecp256k1PEM() throws {
        // The layout `openssl ecparam -genkey` and dfx write: an EC PARAMETERS block, then the SEC1 key.
        let key = try ECDSA.PrivateKey(curve: .secp256k1)
        let pem = "-----BEGIN EC PARAMETERS-----\nBgUrgQQACg==\n-----END EC PARAMETERS-----\n" + key.sec1PEMRepresentation
        #expect(try ECDSA.PrivateKey(pemRepresentation: pem).publicKey == key.publicKey)
    }

    /// SEC1 and PKCS#8 carry the public point beside the scalar; one that is not d·G must be refused, or the key
    /// would sign as one identity while naming another (the `pem-keys` fuzz finding).
    @Test(arguments: ECDSA.Curve.allCases)
    func embeddedPublicKeyMustBeTheScalars(curve: ECDSA.Curve) throws {
        let key = try ECDSA.PrivateKey(curve: curve), other = try ECDSA.PrivateKey(curve: curve)
        let point = key.publicKey.uncompressedRepresentation, otherPoint = other.publicKey.uncompressedRepresentation
        for der in [key.sec1DERRepresentation, key.pkcs8DERRepresentation] {
            #expect(Array(der.suffix(point.count)) == point, "OpenSSL writes the public point last")
        }
        let sec1 = Array(key.sec1DERRepresentation.dropLast(point.count)) + otherPoint
        let pkcs8 = Array(key.pkcs8DERRepresentation.dropLast(point.count)) + otherPoint
        let pem = PEM.encode(label: "EC PRIVATE KEY", der: sec1)
        let errors = [#expect(throws: CryptoError.self) { try ECDSA.PrivateKey(sec1DERRepresentation: sec1) },
                      #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(pkcs8DERRepresentation: pkcs8) },
                      #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(pemRepresentation: pem) }]
        for error in errors {
            #expect(error?.kind == .invalidKey)
            #expect(error?.message.contains("embedded public key does not match the private key") == true, "\(error?.message ?? "")")
        }
        // The untouched encodings still read back.
        #expect(try ECDSA.PrivateKey(sec1DERRepresentation: key.sec1DERRepresentation).publicKey == key.publicKey)
        #expect(try ECDSA.PrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation).publicKey == key.publicKey)
    }

    /// SEC1 `ECPrivateKey` and PKCS#8 are read by omni (RFC 5915, RFC 5208/5958): what each field may hold, and
    /// what a wrong one is called. d = 1 keeps the expected public key known (the generator).
    @Test(arguments: ECDSA.Curve.allCases)
    func sec1AndPKCS8FieldByField(curve: ECDSA.Curve) throws {
        let one = [UInt8](repeating: 0, count: curve.byteCount - 1) + [1]
        let generator = try ECDSA.PrivateKey(rawRepresentation: one, curve: curve).publicKey
        let point = DERWriter.element(tag: 0xa1, DERWriter.element(tag: 0x03, [0] + generator.uncompressedRepresentation))
        let parameters = DERWriter.element(tag: 0xa0, curveOID(curve))
        func sec1(version: [UInt8] = [1], scalar: [UInt8]? = nil, _ tail: [UInt8]...) -> [UInt8] {
            DERWriter.element(tag: 0x30, DERWriter.unsignedInteger(version) + DERWriter.element(tag: 0x04, scalar ?? one) + tail.flatMap { $0 })
        }
        func pkcs8(version: [UInt8] = [], algorithm: [UInt8]? = nil, key: [UInt8], _ tail: [UInt8]...) -> [UInt8] {
            let algorithm = algorithm ?? DERWriter.sequence(hex("06072a8648ce3d0201"), curveOID(curve))
            return DERWriter.sequence(DERWriter.unsignedInteger(version), algorithm, DERWriter.element(tag: 0x04, key), tail.flatMap { $0 })
        }
        func message(_ body: () throws -> Void) -> String {
            do { try body(); return "accepted" } catch let error as CryptoError { return error.kind == .invalidKey ? error.message : "\(error.kind)" } catch { return "\(error)" }
        }
        // Accepted: with or without the public key; a scalar whose leading zero bytes were dropped (OpenSSL
        // before 1.1 wrote them so); PKCS#8 with the parameters inside, outside, and RFC 5958's public key.
        for der in [sec1(parameters, point), sec1(parameters), sec1(scalar: [1], parameters, point)] {
            #expect(try ECDSA.PrivateKey(sec1DERRepresentation: der).publicKey == generator)
        }
        for der in [pkcs8(key: sec1(point)), pkcs8(key: sec1(parameters, point)), pkcs8(key: sec1()),
                    pkcs8(version: [1], key: sec1(), DERWriter.element(tag: 0x81, [0] + generator.uncompressedRepresentation))] {
            #expect(try ECDSA.PrivateKey(pkcs8DERRepresentation: der).publicKey == generator)
        }
        // Refused, each with what is wrong.
        let otherCurve: ECDSA.Curve = curve == .p256 ? .secp256k1 : .p256
        let refusals: [(String, () throws -> Void)] = [
            ("has no parameters naming its curve", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(point)) }),
            ("unsupported ECPrivateKey version 02", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(version: [2], parameters)) }),
            ("has \(curve.byteCount) bytes, not \(curve.byteCount + 1)", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(scalar: [0] + one, parameters)) }),
            ("is not in 1…n−1", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(scalar: [0], parameters)) }),
            ("explicit and implicit parameters are not supported", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(DERWriter.element(tag: 0xa0, DERWriter.sequence([2, 1, 1])))) }),
            ("unsupported EC curve secp521r1;", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(DERWriter.element(tag: 0xa0, hex("06052b81040023")))) }),
            ("does not start with 0 unused bits", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(parameters, DERWriter.element(tag: 0xa1, DERWriter.element(tag: 0x03, [1] + generator.uncompressedRepresentation)))) }),
            ("byte \(sec1(parameters).count)): 1 unexpected trailing bytes", { _ = try ECDSA.PrivateKey(sec1DERRepresentation: sec1(parameters) + [0]) }),
            ("names another curve than the algorithm", { _ = try ECDSA.PrivateKey(pkcs8DERRepresentation: pkcs8(key: sec1(DERWriter.element(tag: 0xa0, curveOID(otherCurve))))) }),
            ("unsupported PKCS#8 version 02", { _ = try ECDSA.PrivateKey(pkcs8DERRepresentation: pkcs8(version: [2], key: sec1())) }),
            ("is not an EC key", { _ = try ECDSA.PrivateKey(pkcs8DERRepresentation: pkcs8(algorithm: DERWriter.sequence(hex("06032b6570")), key: sec1())) }),
            ("embedded public key does not match", { _ = try ECDSA.PrivateKey(pkcs8DERRepresentation: pkcs8(version: [1], key: sec1(), DERWriter.element(tag: 0x81, [0] + (try! ECDSA.PrivateKey(curve: curve)).publicKey.uncompressedRepresentation))) }),
        ]
        for (expected, body) in refusals {
            let text = message(body)
            #expect(text.contains(expected), "\(curve): expected “\(expected)”, got “\(text)”")
        }
    }

    private func curveOID(_ curve: ECDSA.Curve) -> [UInt8] {
        switch curve {
        case .p256: hex("06082a8648ce3d030107")
        case .p384: hex("06052b81040022")
        case .secp256k1: hex("06052b8104000a")
        }
    }

    @Test func rejectsBadKeys() throws {
        let curve = ECDSA.Curve.p256
        let order = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        var orderMinusOne = order
        orderMinusOne[31] -= 1
        #expect(throws: Never.self) { try ECDSA.PrivateKey(rawRepresentation: orderMinusOne, curve: curve) }
        for bad in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xff, count: 32), [1]] {
            let error = #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(rawRepresentation: bad, curve: curve) }
            #expect(error?.kind == .invalidKey)
        }
        let point = try ECDSA.PrivateKey(curve: curve).publicKey.uncompressedRepresentation
        var offCurve = point
        offCurve[64] ^= 1
        let badPoints: [[UInt8]] = [offCurve, Array(point.dropLast()), [0x00], [0x05] + Array(point.dropFirst()),
                                    [0x04] + [UInt8](repeating: 0, count: 64)]
        for bad in badPoints {
            let error = #expect(throws: CryptoError.self) { try ECDSA.PublicKey(pointRepresentation: bad, curve: curve) }
            #expect(error?.kind == .invalidKey)
        }
        // Ed25519 keys are not EC keys; an Ed25519 SPKI is not an EC SPKI.
        let ed25519 = Ed25519.PrivateKey()
        #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(pemRepresentation: ed25519.pemRepresentation) }
        #expect(throws: CryptoError.self) { try ECDSA.PublicKey(derRepresentation: ed25519.publicKey.derRepresentation) }
        #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(pemRepresentation: "no pem here") }
        // A malformed encoding names the byte where it goes wrong.
        let garbage = #expect(throws: CryptoError.self) { try ECDSA.PrivateKey(pkcs8DERRepresentation: [0x30, 0x03, 0x02, 0x01, 0x00]) }
        #expect(garbage?.kind == .invalidKey)
        #expect(garbage?.message.hasPrefix("PKCS#8 EC private key: ") == true, "\(garbage?.message ?? "")")
        #expect(garbage?.message.contains("byte 5") == true, "\(garbage?.message ?? "")")
        let p256 = try ECDSA.PrivateKey(curve: .p256)
        #expect(throws: CryptoError.self) { try ECDSA.PublicKey(derRepresentation: p256.publicKey.derRepresentation + [0]) }
    }

    /// Malformed signatures throw; well-formed wrong ones return false (the convention documented on `ECDSA`).
    @Test func signatureEncodingStrictness() throws {
        let curve = ECDSA.Curve.p256
        let key = try ECDSA.PrivateKey(curve: curve)
        let message = Array("message".utf8)
        let der = try key.signature(for: message, format: .der)
        let parsed = try ECDSA.Signature(derRepresentation: der, curve: curve)
        #expect(parsed.derRepresentation == der)
        #expect(try ECDSA.Signature(rawRepresentation: parsed.rawRepresentation, curve: curve) == parsed)

        let r = parsed.r, s = parsed.s
        func integer(_ content: [UInt8]) -> [UInt8] { [0x02, UInt8(content.count)] + content }
        func sequence(_ content: [UInt8]) -> [UInt8] { [0x30, UInt8(content.count)] + content }
        let malformed: [[UInt8]] = [
            der + [0],  // trailing byte
            sequence(integer([0, 0] + r) + integer(s)),  // non-minimal INTEGER (extra leading zero)
            sequence(integer([0x80] + r) + integer(s)),  // negative r
            sequence(integer(r)),  // s missing
            sequence(integer([0]) + integer(s)),  // r = 0
            sequence(integer([0] + hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")) + integer(s)),  // r = n
            [0x30, 0x81, 0x44] + Array(der.dropFirst(2)),  // non-minimal length
            [],
        ]
        for bad in malformed {
            let error = #expect(throws: CryptoError.self, "\(bad.hexString)") {
                try key.publicKey.isValidSignature(bad, for: message, format: .der)
            }
            #expect(error?.kind == .invalidInput)
        }
        let badRaw: [[UInt8]] = [Array(parsed.rawRepresentation.dropLast()), parsed.rawRepresentation + [0], [UInt8](repeating: 0, count: 64)]
        for bad in badRaw {
            #expect(throws: CryptoError.self) { try key.publicKey.isValidSignature(bad, for: message, format: .raw) }
        }
        #expect(throws: CryptoError.self) { try key.signature(forDigest: [UInt8](), format: .der) }
        #expect(throws: CryptoError.self) { try key.publicKey.isValidSignature(der, forDigest: [UInt8](repeating: 1, count: 65)) }
        // Well-formed but wrong: r and s swapped.
        #expect(try !key.publicKey.isValidSignature(s + r, for: message, format: .raw))
    }

    /// secp256k1 low-S rule: signing with `lowS` always yields s ≤ n/2; the high-S twin (r, n − s) verifies
    /// normally but not under `requireLowS`.
    @Test func lowSNormalisation() throws {
        let key = try ECDSA.PrivateKey(curve: .secp256k1)
        let message = Array("bitcoin".utf8)
        for _ in 0..<16 {
            let signature = try ECDSA.Signature(key.signature(for: message, format: .raw, lowS: true), format: .raw, curve: .secp256k1)
            #expect(signature.isLowS)
            #expect(signature.lowSNormalized == signature)
            #expect(try key.publicKey.isValidSignature(signature.rawRepresentation, for: message, format: .raw, requireLowS: true))
            // n − s: built here from the order so that the library's own subtraction is not trusted.
            let order = hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
            var high = [UInt8](repeating: 0, count: 32)
            var borrow = 0
            for index in stride(from: 31, through: 0, by: -1) {
                var value = Int(order[index]) - Int(signature.s[index]) - borrow
                borrow = value < 0 ? 1 : 0
                if value < 0 { value += 256 }
                high[index] = UInt8(value)
            }
            let twin = try ECDSA.Signature(rawRepresentation: signature.r + high, curve: .secp256k1)
            #expect(!twin.isLowS)
            #expect(twin.lowSNormalized == signature)
            #expect(try key.publicKey.isValidSignature(twin.rawRepresentation, for: message, format: .raw))
            #expect(try !key.publicKey.isValidSignature(twin.derRepresentation, for: message, format: .der, requireLowS: true))
        }
    }

    @Test func privateScalarIsNotPrinted() throws {
        let key = try ECDSA.PrivateKey(curve: .p256)
        let scalar = key.rawRepresentation.hexString
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, "\(key)", String(reflecting: key), dumped] {
            #expect(!text.contains(scalar))
        }
        #expect(key.description.contains("redacted"))
    }
}

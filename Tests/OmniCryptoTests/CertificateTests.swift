import Foundation
import Testing
import OmniCodec
import OmniCrypto
import OmniTestSupport

@Suite("X.509 certificates and chain verification")
struct CertificateTests {
    static let appAttestOID = "1.2.840.113635.100.8.2"
    static let day: Int64 = 86_400
    static let year: Int64 = 365 * 86_400

    /// A root → intermediate → leaf chain (P-256) and an unrelated root, made by the Python peer at test time.
    struct GeneratedChain {
        let seed: UInt64
        let root, intermediate, leaf, otherRoot: Certificate
        let leafWindow, intermediateWindow, rootWindow: (Int64, Int64)
        let serials: [Int]
        let extensionValue: [UInt8]
        let leafSPKI: [UInt8]
        let leafScalar: [UInt8]
        let leafCommonName: String
    }

    static func makeChain() throws -> GeneratedChain {
        var random = SeededGenerator()
        let base = 1_600_000_000 + Int64.random(in: 0...(10 * year), using: &random)
        let rootWindow = (base - 10 * year, base + 20 * year)
        let intermediateWindow = (base - 5 * year, base + 10 * year)
        let leafWindow = (base, base + Int64.random(in: 30...400, using: &random) * day)
        let scalars = (0..<4).map { _ in random.scalar(for: .p256) }
        let serials = (0..<4).map { _ in Int.random(in: 1...Int(Int32.max), using: &random) }
        // The App Attest nonce extension layout: SEQUENCE { [1] { OCTET STRING (32) } }.
        let extensionValue = hex("3024a1220420") + random.bytes(32)
        let leafCommonName = "leaf \(random.bytes(4).hexString)"
        let windows: [JSONValue] = [rootWindow, intermediateWindow, leafWindow].map { .array([.int($0.0), .int($0.1)]) }
        let request: JSONValue = .object(JSONObject([
            ("op", "x509_chain"), ("scalars", .array(scalars.map { .string($0.hexString) })),
            ("serials", .array(serials.map { .int($0) })), ("root_window", windows[0]), ("intermediate_window", windows[1]),
            ("leaf_window", windows[2]), ("extension_oid", .string(appAttestOID)),
            ("extension_value", .string(extensionValue.hexString)), ("leaf_common_name", .string(leafCommonName)),
        ]))
        let response = try #require(try CryptoPeer.run([request]).first)
        guard response.isOK else { throw TestSupportError("seed \(random.seed): peer failed: \(response.serialized())") }
        return GeneratedChain(
            seed: random.seed,
            root: try Certificate(pemRepresentation: response.string("root_pem")),
            intermediate: try Certificate(pemRepresentation: response.string("intermediate_pem")),
            leaf: try Certificate(pemRepresentation: response.string("leaf_pem")),
            otherRoot: try Certificate(pemRepresentation: response.string("other_root_pem")),
            leafWindow: leafWindow, intermediateWindow: intermediateWindow, rootWindow: rootWindow, serials: serials,
            extensionValue: extensionValue, leafSPKI: try response.bytes("leaf_spki_der"), leafScalar: scalars[2],
            leafCommonName: leafCommonName)
    }

    static func failure(_ body: () throws -> [Certificate]) -> CryptoError? {
        do {
            _ = try body()
            return nil
        } catch let error as CryptoError {
            return error
        } catch {
            return CryptoError(.library, "unexpected error type: \(error)")
        }
    }

    /// One peer run; every verification outcome is checked against the windows the test chose.
    @Test func generatedChain() throws {
        let chain = try Self.makeChain()
        let context: Comment = "seed \(chain.seed)"
        let inside = chain.leafWindow.0 + (chain.leafWindow.1 - chain.leafWindow.0) / 2

        // Parsed fields match what was asked for.
        #expect(chain.leaf.subject == "CN=\(chain.leafCommonName),O=omni test,C=CH", context)
        #expect(chain.leaf.subjectCommonName == chain.leafCommonName, context)
        #expect(chain.leaf.issuer == "CN=omni test intermediate,O=omni test,C=CH", context)
        #expect(chain.root.subject == chain.root.issuer, context)
        #expect(chain.leaf.notBefore == chain.leafWindow.0 && chain.leaf.notAfter == chain.leafWindow.1, context)
        #expect(chain.intermediate.notBefore == chain.intermediateWindow.0, context)
        #expect(chain.root.notAfter == chain.rootWindow.1, context)
        let serialBytes = withUnsafeBytes(of: UInt64(chain.serials[2]).bigEndian) { Array($0) }.drop(while: { $0 == 0 })
        #expect(chain.leaf.serialNumber == Array(serialBytes), context)
        #expect(!chain.leaf.isSerialNumberNegative, context)
        #expect(chain.leaf.subjectPublicKeyInfo == chain.leafSPKI, context)
        #expect(chain.leaf.fingerprintSHA256 == SHA256.hash(chain.leaf.derRepresentation), context)

        // The custom extension comes back byte for byte; absent OIDs give nil.
        #expect(chain.leaf.extensionValue(oid: Self.appAttestOID) == chain.extensionValue, context)
        #expect(chain.leaf.extensions.first { $0.oid == Self.appAttestOID }?.isCritical == false, context)
        #expect(chain.leaf.extensions.first { $0.oid == "2.5.29.19" }?.isCritical == true, context)  // basicConstraints
        #expect(chain.root.extensionValue(oid: Self.appAttestOID) == nil, context)

        // The leaf's key verifies a signature made with the leaf's private scalar.
        let leafKey = try chain.leaf.ecdsaPublicKey()
        #expect(leafKey.curve == .p256 && leafKey.derRepresentation == chain.leafSPKI, context)
        let signer = try ECDSA.PrivateKey(rawRepresentation: chain.leafScalar, curve: .p256)
        #expect(try leafKey.isValidSignature(signer.signature(for: [1, 2, 3]), for: [1, 2, 3]), context)
        #expect(throws: CryptoError.self) { try chain.leaf.ed25519PublicKey() }

        // Inside every window: verifies, leaf first, root last, whatever the order and extras of the untrusted set.
        let verified = try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.otherRoot, chain.intermediate],
                                                   roots: [chain.otherRoot, chain.root], at: inside)
        #expect(verified == [chain.leaf, chain.intermediate, chain.root], context)
        // OpenSSL's window: notBefore inclusive, notAfter exclusive (checked at both edges).
        #expect(throws: Never.self) {
            try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root], at: chain.leafWindow.0)
        }
        #expect(throws: Never.self) {
            try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root], at: chain.leafWindow.1 - 1)
        }

        let cases: [(String, CryptoError.CertificateFailure, () throws -> [Certificate])] = [
            ("exactly at the leaf's notAfter", .expired, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root],
                                            at: chain.leafWindow.1)
            }),
            ("one second before the leaf's notBefore", .notYetValid, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root],
                                            at: chain.leafWindow.0 - 1)
            }),
            ("a day after the leaf's notAfter", .expired, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root],
                                            at: chain.leafWindow.1 + Self.day)
            }),
            ("a day before the leaf's notBefore", .notYetValid, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.root],
                                            at: chain.leafWindow.0 - Self.day)
            }),
            ("the unrelated root", .untrustedRoot, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [chain.otherRoot], at: inside)
            }),
            ("no roots", .untrustedRoot, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [chain.intermediate], roots: [], at: inside)
            }),
            ("a missing intermediate", .untrustedRoot, {
                try Certificate.verifyChain(leaf: chain.leaf, intermediates: [], roots: [chain.root], at: inside)
            }),
            ("a tampered leaf", .badSignature, {
                try Certificate.verifyChain(leaf: Self.tamperedSerial(chain.leaf), intermediates: [chain.intermediate],
                                            roots: [chain.root], at: inside)
            }),
        ]
        for (label, expected, body) in cases {
            let error = Self.failure(body)
            #expect(error?.kind == .certificateInvalid, "\(context): \(label)")
            #expect(error?.certificateFailure == expected, "\(context): \(label): \(error?.message ?? "no error")")
            #expect(error?.message.contains("certificate chain rejected") == true, "\(context): \(label)")
        }
        let expired = Self.failure(cases[0].2)
        #expect(expired?.message.contains("expired") == true, "\(context): \(expired?.message ?? "")")
    }

    /// Flips the last byte of the serial number inside the signed part: issuer and key still match, the
    /// signature no longer does.
    static func tamperedSerial(_ certificate: Certificate) throws -> Certificate {
        var der = certificate.derRepresentation
        let serial = certificate.serialNumber
        let range = try #require(der.firstRange(of: [0x02, UInt8(serial.count)] + serial)
                                 ?? der.firstRange(of: [0x02, UInt8(serial.count + 1), 0x00] + serial))
        der[range.upperBound - 1] ^= 0x01
        return try Certificate(derRepresentation: der)
    }

    /// Apple's two roots in the shared vectors parse, and every field matches Python's reading and SOURCES.md.
    @Test(.vectors("attest")) func appleRoots() throws {
        let files = ["attest/apple_app_attestation_root_ca.pem", "attest/apple_root_ca_g3.pem"]
        let texts = try files.map { try Vectors.text($0) }
        let certificates = try texts.map { try Certificate(pemRepresentation: $0) }
        let responses = try CryptoPeer.run(texts.map { ["op": "cert_info", "pem": .string($0)] })
        for (certificate, response) in zip(certificates, responses) {
            #expect(response.isOK, "\(response.serialized())")
            #expect(try certificate.subject == response.string("subject"))
            #expect(try certificate.issuer == response.string("issuer"))
            #expect(try certificate.notBefore == response.int("not_before"))
            #expect(try certificate.notAfter == response.int("not_after"))
            #expect(try certificate.fingerprintSHA256 == response.bytes("fingerprint_sha256"))
            #expect(try certificate.subjectPublicKeyInfo == response.bytes("spki_der"))
            #expect(try certificate.serialNumber.hexString.drop(while: { $0 == "0" }) == response.string("serial"))
            #expect(try certificate.ecdsaPublicKey().curve == .p384)
            // Self-signed trust anchors verify against themselves inside their validity.
            #expect(try Certificate.verifyChain(leaf: certificate, roots: [certificate], at: certificate.notBefore + Self.year) == [certificate])
        }
        // SOURCES.md: App Attestation Root CA fingerprint and validity (2020-03-18 .. 2045-03-15), G3 fingerprint.
        #expect(certificates[0].fingerprintSHA256 == hex("1CB9823BA28BA6AD2D33A006941DE2AE4F513EF1D4E831B9F7E0FA7B6242C932"))
        #expect(certificates[0].subjectCommonName == "Apple App Attestation Root CA")
        #expect(certificates[0].notBefore / Self.day == daysSinceEpoch(2020, 3, 18))
        #expect(certificates[0].notAfter / Self.day == daysSinceEpoch(2045, 3, 15))
        #expect(certificates[1].fingerprintSHA256 == hex("63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"))
        // Apple encodes this name CN-first, so RFC 4514's last-RDN-first order puts C first.
        #expect(certificates[1].subject == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3")
        // A bundle of both parses in order.
        #expect(try Certificate.certificates(fromPEM: texts.joined(separator: "\n")) == certificates)
    }

    /// Days since 1970-01-01 via Foundation's calendar, independent of the library's own date code.
    func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        return Int64(date.timeIntervalSince1970) / Self.day
    }

    @Test(.vectors("attest")) func malformedInputs() throws {
        let root = try Certificate(pemRepresentation: Vectors.text("attest/apple_root_ca_g3.pem"))
        let der = root.derRepresentation
        let inputs: [[UInt8]] = [[], [0x30, 0x00], Array(der.dropLast()), der + [0x00], Array(repeating: 0x30, count: 100)]
        for bytes in inputs {
            let error = #expect(throws: CryptoError.self) { try Certificate(derRepresentation: bytes) }
            #expect(error?.kind == .certificateInvalid)
        }
        for text in ["", "no pem", "-----BEGIN CERTIFICATE-----\nAAAA\n", "-----BEGIN CERTIFICATE-----\n@@@@\n-----END CERTIFICATE-----\n",
                     "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END CERTIFICATE-----\n"] {
            #expect(throws: CryptoError.self) { try Certificate(pemRepresentation: text) }
            #expect(throws: CryptoError.self) { try Certificate.certificates(fromPEM: text) }
        }
        // Two certificates where exactly one is expected.
        #expect(throws: CryptoError.self) { try Certificate(pemRepresentation: root.pemRepresentation + root.pemRepresentation) }
        #expect(try Certificate(pemRepresentation: root.pemRepresentation) == root)
    }
}

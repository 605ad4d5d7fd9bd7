import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// Wrong lengths, non-canonical points and scalars, and malformed paths are refused with a CryptoError that says
/// what is wrong, never a crash and never a secret in the message.
@Suite("sr25519: hostile input")
struct Sr25519HostileInputTests {
    static let order = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
    static let orderPlusOne = hex("eed3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")

    static func error(_ body: () throws(CryptoError) -> Void) -> CryptoError? { caughtError(body) }

    @Test(arguments: [0, 31, 33, 64])
    func publicKeysOfTheWrongLength(_ count: Int) {
        let error = Self.error { () throws(CryptoError) in _ = try Sr25519.PublicKey(rawRepresentation: [UInt8](repeating: 2, count: count)) }
        #expect(error?.kind == .invalidKey)
        #expect(error?.message == "sr25519 public key must be 32 bytes, got \(count)")
    }

    /// RFC 9496 §4.3.1 refuses: a negative field element (odd low byte), the field prime itself and values above it
    /// (non-canonical), and the top bit set.
    @Test(arguments: [
        "0100000000000000000000000000000000000000000000000000000000000000",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000080",
    ])
    func nonCanonicalPublicKeys(_ encoding: String) {
        let error = Self.error { () throws(CryptoError) in _ = try Sr25519.PublicKey(rawRepresentation: hex(encoding)) }
        #expect(error?.kind == .invalidKey)
        #expect(error?.message.contains("is not a canonical ristretto255 point encoding") == true)
    }

    /// Regression guard for the one place omni is stricter than schnorrkel: under the identity key any s·B is a
    /// valid signature, so the key itself is refused.
    @Test func theIdentityIsNoPublicKey() throws {
        let error = Self.error { () throws(CryptoError) in _ = try Sr25519.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
        #expect(error?.kind == .invalidKey)
        #expect(error?.message.contains("identity") == true)
        let zeroScalar = Self.error { () throws(CryptoError) in _ = try Sr25519.Keypair(secretKey: [UInt8](repeating: 0, count: 64)) }
        #expect(zeroScalar?.message.contains("scalar is zero") == true)
    }

    @Test func malformedSignaturesAreRefused() throws {
        let keypair = Sr25519.Keypair()
        let message = Array("message".utf8)
        let signature = keypair.signature(for: message)
        for count in [0, 63, 65] {
            let error = Self.error { () throws(CryptoError) in _ = try keypair.publicKey.isValidSignature([UInt8](repeating: 0x80, count: count), for: message) }
            #expect(error?.message == "sr25519 signature must be 64 bytes, got \(count)")
        }
        // Without schnorrkel's marker bit (an Ed25519-style signature).
        var unmarked = signature
        unmarked[63] &= 0x7f
        #expect(Self.error { () throws(CryptoError) in _ = try keypair.publicKey.isValidSignature(unmarked, for: message) }?.message.contains("marker") == true)
        // s = ℓ and s = ℓ + 1, each with the marker set: not reduced.
        for scalar in [Self.order, Self.orderPlusOne] {
            var forged = Array(signature[0..<32]) + scalar
            forged[63] |= 0x80
            let error = Self.error { () throws(CryptoError) in _ = try keypair.publicKey.isValidSignature(forged, for: message) }
            #expect(error?.kind == .invalidInput)
            #expect(error?.message.contains("not reduced modulo ℓ") == true)
        }
        // A non-canonical R is compared by its bytes, as schnorrkel does: simply not valid.
        var badCommitment = signature
        badCommitment.replaceSubrange(0..<32, with: hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
        #expect(try !keypair.publicKey.isValidSignature(badCommitment, for: message))
        #expect(try keypair.publicKey.isValidSignature(signature, for: message))
    }

    @Test func malformedSecretsAreRefusedWithoutEchoingThem() throws {
        for count in [0, 32, 63, 65] {
            let secret = [UInt8](repeating: 0x11, count: count)
            let error = Self.error { () throws(CryptoError) in _ = try Sr25519.Keypair(secretKey: secret) }
            #expect(error?.message == "sr25519 secret key must be 64 bytes (scalar ‖ nonce), got \(count)")
        }
        let nonCanonical = Self.order + [UInt8](repeating: 0x5a, count: 32)
        let error = Self.error { () throws(CryptoError) in _ = try Sr25519.Keypair(secretKey: nonCanonical) }
        #expect(error?.kind == .invalidKey)
        #expect(error?.message.contains("not reduced modulo ℓ") == true)
        #expect(error?.message.contains("5a5a") == false)
        #expect(error?.message.contains("edd3") == false)
        for count in [0, 31, 33] {
            #expect(Self.error { () throws(CryptoError) in _ = try Sr25519.Keypair(miniSecretKey: [UInt8](repeating: 1, count: count)) }?.message
                == "sr25519 mini secret key must be 32 bytes, got \(count)")
        }
        #expect(Self.error { () throws(CryptoError) in _ = try Sr25519.ChainCode([UInt8](repeating: 0, count: 31)) }?.message == "sr25519 chain code must be 32 bytes, got 31")
    }

    @Test func keypairsNeverPrintTheirSecret() throws {
        let keypair = try Sr25519.Keypair(miniSecretKey: [UInt8](repeating: 7, count: 32))
        let secretHex = keypair.secretKeyRepresentation.hexString
        let scalarHex = String(secretHex.prefix(64)), nonceHex = String(secretHex.suffix(64))
        for text in [keypair.description, keypair.debugDescription, String(describing: keypair), String(reflecting: keypair),
                     "\(Mirror(reflecting: keypair).children.map { "\($0.label ?? ""): \($0.value)" })"] {
            #expect(!text.contains(scalarHex) && !text.contains(nonceHex), "\(text)")
            #expect(text.contains(keypair.publicKey.rawRepresentation.hexString))
        }
    }

    @Test(arguments: [
        ("abc", "expected '/' or '//' at byte 0"),
        ("/a b/c", nil),
        ("//", "empty junction name at byte 2"),
        ("/", "empty junction name at byte 1"),
        ("//a//", "empty junction name at byte 5"),
        ("//a/b/", "empty junction name at byte 6"),
        ("//alice///password", "'///' at byte 7 starts a password"),
        ("///", "'///' at byte 0 starts a password"),
    ] as [(String, String?)])
    func malformedPaths(_ path: String, _ expected: String?) throws {
        let error = Self.error { () throws(CryptoError) in _ = try Sr25519.Junction.parsePath(path) }
        if let expected {
            #expect(error?.kind == .invalidInput)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
        } else {
            #expect(error == nil)
        }
    }

    @Test func pathLimits() throws {
        #expect(try Sr25519.Junction.parsePath("") == [])
        #expect(try Sr25519.Junction.parsePath("//product//myapp.dot/0") == [.hard("product"), .hard("myapp.dot"), .soft("0")])
        let long = "/" + String(repeating: "a", count: Sr25519.Junction.maximumPathByteCount)
        #expect(Self.error { () throws(CryptoError) in _ = try Sr25519.Junction.parsePath(long) }?.message.contains("more than 4096") == true)
        let many = String(repeating: "/a", count: Sr25519.Junction.maximumJunctionCount + 1)
        #expect(Self.error { () throws(CryptoError) in _ = try Sr25519.Junction.parsePath(many) }?.message.contains("more than 256 junctions") == true)
        #expect(try Sr25519.Junction.parsePath(String(repeating: "/a", count: Sr25519.Junction.maximumJunctionCount)).count == 256)
    }

    @Test func hardJunctionsNeedTheSecret() throws {
        let key = Sr25519.Keypair().publicKey
        let error = Self.error { () throws(CryptoError) in _ = try key.derived([.soft("a"), .hard("b")]) }
        #expect(error?.message == "junction 2 of the path is hard (//…): it cannot be derived from a public key")
    }

    @Test func malformedVRFInputsAreRefused() throws {
        let keypair = Sr25519.Keypair()
        let transcript = MerlinTranscript(label: "vrf")
        let signature = keypair.vrfSign(transcript: transcript)
        let key = keypair.publicKey
        func refusal(_ preOutput: [UInt8], _ proof: [UInt8]) -> String? {
            Self.error { () throws(CryptoError) in _ = try key.vrfVerify(transcript: transcript, preOutput: preOutput, proof: proof) }?.message
        }
        #expect(refusal(Array(signature.preOutput.prefix(31)), signature.proof) == "sr25519 VRF pre-output must be 32 bytes, got 31")
        #expect(refusal(hex("0100000000000000000000000000000000000000000000000000000000000000"), signature.proof)?
            .contains("not a canonical ristretto255 point encoding") == true)
        #expect(refusal([UInt8](repeating: 0, count: 32), signature.proof) == "sr25519 VRF pre-output is the identity point")
        #expect(refusal(signature.preOutput, signature.proof + [0]) == "sr25519 VRF proof must be 64 bytes (c ‖ s), got 65")
        #expect(refusal(signature.preOutput, Self.order + signature.proof.suffix(32)) == "sr25519 VRF proof: c (bytes 0…31) is not reduced modulo ℓ")
        #expect(refusal(signature.preOutput, signature.proof.prefix(32) + Self.orderPlusOne) == "sr25519 VRF proof: s (bytes 32…63) is not reduced modulo ℓ")
        #expect(try key.vrfVerify(transcript: transcript, preOutput: signature.preOutput, proof: signature.proof) == signature.inOut)
        // Another key's valid output under this proof: a well-formed but false claim.
        let other = Sr25519.Keypair().vrfSign(transcript: transcript)
        #expect(try key.vrfVerify(transcript: transcript, preOutput: other.preOutput, proof: signature.proof) == nil)
        #expect(Self.error { () throws(CryptoError) in _ = try signature.inOut.outputBytes(context: [], count: -1) }?.kind == .invalidInput)
    }

    /// Arbitrary bytes in every parsing entry point: refused or accepted, never a crash.
    @Test func randomBytesNeverCrash() throws {
        var random = SeededGenerator()
        let keypair = Sr25519.Keypair()
        let transcript = MerlinTranscript(label: "fuzz")
        var acceptedKeys = 0
        for _ in 0..<500 {
            let bytes = random.bytes(in: 0...70)
            if let key = try? Sr25519.PublicKey(rawRepresentation: bytes.prefix(32)) {
                acceptedKeys += 1
                _ = try? key.isValidSignature(random.bytes(64), for: bytes)
                _ = try? key.vrfVerify(transcript: transcript, preOutput: random.bytes(32), proof: random.bytes(64))
            }
            _ = try? keypair.publicKey.isValidSignature(bytes, for: bytes)
            _ = try? keypair.publicKey.vrfVerify(transcript: transcript, preOutput: bytes.prefix(32), proof: bytes.suffix(64))
            _ = try? Sr25519.Keypair(secretKey: bytes)
            _ = try? Sr25519.Junction.parsePath(String(decoding: bytes, as: UTF8.self))
        }
        // Roughly one in eight random 32-byte strings is a valid encoding; the loop must have exercised some.
        #expect(acceptedKeys > 0, "seed \(random.seed)")
    }
}

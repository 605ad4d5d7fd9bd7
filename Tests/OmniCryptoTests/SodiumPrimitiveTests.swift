import Testing
import OmniCrypto

@Suite("BLAKE2b")
struct BLAKE2bTests {
    /// RFC 7693 Appendix A: BLAKE2b-512("abc").
    @Test func rfc7693Abc() throws {
        let expected = hex("""
            ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1
            7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923
            """)
        #expect(try BLAKE2b.hash(Array("abc".utf8)) == expected)
        #expect(BLAKE2b.hash512(Array("abc".utf8)) == expected)
    }

    /// Keyed vectors from the BLAKE2 reference test vectors (blake2b-kat.txt, github.com/BLAKE2/BLAKE2
    /// testvectors): key = 00 01 … 3f, input = the first n bytes of 00 01 02 …, 64-byte output.
    @Test(arguments: [
        (0, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"),
        (1, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd"),
        (2, "da2cfbe2d8409a0f38026113884f84b50156371ae304c4430173d08a99d9fb1b983164a3770706d537f49e0c916d9f32b95cc37a95b99d857436f0232c88a965"),
    ])
    func keyedKnownAnswers(_ length: Int, _ expected: String) throws {
        let key = Array(UInt8(0)...63)
        let input = Array(UInt8(0)..<UInt8(length))
        #expect(try BLAKE2b.hash(input, outputByteCount: 64, key: key) == hex(expected))
        var hasher = try BLAKE2b.Hasher(outputByteCount: 64, key: key)
        hasher.update(input)
        #expect(hasher.finalize() == hex(expected))
    }

    /// BLAKE2b-256 vector from the Iroha Connect sid derivation (iroha_torii connect session vectors, see
    /// shared/reference/connect.md §3.1): network 41…41, app key 01…01, nonce 02…02.
    @Test func connectSessionIdentifier() {
        let input = Array("iroha-connect|sid|".utf8) + [UInt8](repeating: 0x41, count: 32)
            + [UInt8](repeating: 0x01, count: 32) + [UInt8](repeating: 0x02, count: 16)
        #expect(BLAKE2b.hash256(input) == hex("3585891bdcb97bcf2e82617641940fedd4c2c0be946d21b603c60dbcfa57f4b2"))
        // A 32-byte BLAKE2b is not the truncated 64-byte one.
        #expect(BLAKE2b.hash256(input) != Array(BLAKE2b.hash512(input).prefix(32)))
    }

    @Test func incrementalMatchesOneShotAtEverySplit() throws {
        let message = (0..<260).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        for outputLength in [1, 20, 32, 64] {
            let expected = try BLAKE2b.hash(message, outputByteCount: outputLength, key: Array("k".utf8))
            for split in stride(from: 0, through: message.count, by: 7) {
                var hasher = try BLAKE2b.Hasher(outputByteCount: outputLength, key: Array("k".utf8))
                hasher.update(message[..<split])
                let snapshot = hasher
                hasher.update(message[split...])
                #expect(hasher.finalize() == expected, "length \(outputLength) split \(split)")
                #expect(snapshot.finalize() == (try BLAKE2b.hash(message[..<split], outputByteCount: outputLength, key: Array("k".utf8))))
            }
        }
    }

    @Test func parameterLimits() {
        for (length, keyLength) in [(0, 0), (65, 0), (32, 65), (-1, 0)] {
            let error = #expect(throws: CryptoError.self) {
                try BLAKE2b.hash([1, 2, 3], outputByteCount: length, key: [UInt8](repeating: 1, count: keyLength))
            }
            #expect(error?.kind == .invalidInput)
            #expect(throws: CryptoError.self) {
                try BLAKE2b.Hasher(outputByteCount: length, key: [UInt8](repeating: 1, count: keyLength))
            }
        }
    }
}

/// RFC 8032 §7.1 test vectors (TEST 1, 2, 3 and TEST SHA(abc)).
struct Ed25519Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let seed: String
    let publicKey: String
    let message: [UInt8]
    let signature: String
    var testDescription: String { name }
}

let rfc8032: [Ed25519Vector] = [
    Ed25519Vector(name: "TEST 1", seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                  publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", message: [],
                  signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    Ed25519Vector(name: "TEST 2", seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                  publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", message: hex("72"),
                  signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    Ed25519Vector(name: "TEST 3", seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
                  publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", message: hex("af82"),
                  signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    Ed25519Vector(name: "TEST SHA(abc)", seed: "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
                  publicKey: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
                  message: hex("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
                  signature: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
]

/// The group order L of edwards25519, little-endian (RFC 8032 §5.1).
let ed25519OrderLittleEndian = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")

@Suite("Ed25519 (RFC 8032, libsodium)")
struct Ed25519Tests {
    @Test(arguments: rfc8032)
    func knownAnswers(_ vector: Ed25519Vector) throws {
        let key = try Ed25519.PrivateKey(seed: hex(vector.seed))
        #expect(key.publicKey.rawRepresentation == hex(vector.publicKey))
        #expect(key.signature(for: vector.message) == hex(vector.signature))
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        #expect(try publicKey.isValidSignature(hex(vector.signature), for: vector.message))
        var tampered = hex(vector.signature)
        tampered[0] ^= 0x01
        #expect(try !publicKey.isValidSignature(tampered, for: vector.message))
        #expect(try !publicKey.isValidSignature(hex(vector.signature), for: vector.message + [0]))
    }

    /// libsodium 1.0.18 rejects S ≥ L: (R, S + L) satisfies the group equation but is refused.
    @Test func rejectsNonCanonicalS() throws {
        let vector = rfc8032[0]
        let signature = hex(vector.signature)
        var s = Array(signature[32...])
        var carry = 0
        for index in 0..<32 {
            let sum = Int(s[index]) + Int(ed25519OrderLittleEndian[index]) + carry
            s[index] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(carry == 0)
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        #expect(try !publicKey.isValidSignature(Array(signature[..<32]) + s, for: vector.message))
    }

    /// Small-order public keys (here the identity point, 01 00…00) never verify, whatever the signature:
    /// with A = identity, (R = identity, S = 0) would satisfy [S]B = R + [k]A for every message.
    @Test func rejectsSmallOrderPublicKey() throws {
        let identity = [UInt8(1)] + [UInt8](repeating: 0, count: 31)
        let publicKey = try Ed25519.PublicKey(rawRepresentation: identity)
        #expect(try !publicKey.isValidSignature(identity + [UInt8](repeating: 0, count: 32), for: Array("any".utf8)))
    }

    @Test func malformedInputsThrow() throws {
        #expect(throws: CryptoError.self) { try Ed25519.PrivateKey(seed: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: CryptoError.self) { try Ed25519.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 33)) }
        let key = Ed25519.PrivateKey()
        let error = #expect(throws: CryptoError.self) { try key.publicKey.isValidSignature([UInt8](repeating: 0, count: 63), for: [1]) }
        #expect(error?.kind == .invalidInput)
    }

    @Test func randomKeysSignAndVerify() throws {
        let key = Ed25519.PrivateKey()
        let other = Ed25519.PrivateKey()
        #expect(key.seed != other.seed)
        let message = SecureRandom.bytes(100)
        #expect(try key.publicKey.isValidSignature(key.signature(for: message), for: message))
        #expect(try !other.publicKey.isValidSignature(key.signature(for: message), for: message))
        #expect(try Ed25519.PrivateKey(seed: key.seed).publicKey == key.publicKey)
    }

    /// DER SPKI (RFC 8410 §4): the 12-byte prefix the IC interface spec names, then the raw key.
    @Test func subjectPublicKeyInfo() throws {
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(rfc8032[0].publicKey))
        #expect(publicKey.derRepresentation == hex("302a300506032b6570032100") + hex(rfc8032[0].publicKey))
        #expect(try Ed25519.PublicKey(derRepresentation: publicKey.derRepresentation) == publicKey)
        for bad in [publicKey.derRepresentation + [0], Array(publicKey.derRepresentation.dropLast()),
                    hex("302a300506032b6571032100") + hex(rfc8032[0].publicKey)] {
            #expect(throws: CryptoError.self) { try Ed25519.PublicKey(derRepresentation: bad) }
        }
    }

    /// PKCS#8 PEM in the three shapes met in practice: v1 (OpenSSL, Python), v2 with an explicit [1] public key
    /// (ring, hence dfx identities), and v2 with the RFC 5958 implicit [1] and an attribute (RFC 8410 §10.3).
    @Test func pkcs8Forms() throws {
        let seed = hex(rfc8032[0].seed), publicKey = hex(rfc8032[0].publicKey)
        let key = try Ed25519.PrivateKey(seed: seed)
        #expect(key.pkcs8DERRepresentation == hex("302e020100300506032b657004220420") + seed)
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"))
        #expect(try Ed25519.PrivateKey(pemRepresentation: key.pemRepresentation).publicKey == key.publicKey)

        let ringForm = hex("3053020101300506032b657004220420") + seed + hex("a123032100") + publicKey
        #expect(try Ed25519.PrivateKey(pkcs8DERRepresentation: ringForm).publicKey == key.publicKey)
        let rfc5958Form = hex("3072020101300506032b657004220420") + seed
            + hex("a01f301d060a2a864886f70d01090914310f0c0d437572646c6520436861697273") + hex("812100") + publicKey
        #expect(try Ed25519.PrivateKey(pkcs8DERRepresentation: rfc5958Form).publicKey == key.publicKey)

        var wrongPublic = ringForm
        wrongPublic[wrongPublic.count - 1] ^= 1
        #expect(throws: CryptoError.self) { try Ed25519.PrivateKey(pkcs8DERRepresentation: wrongPublic) }
        #expect(throws: CryptoError.self) { try Ed25519.PrivateKey(pkcs8DERRepresentation: ringForm + [0]) }
        #expect(throws: CryptoError.self) { try Ed25519.PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----\n") }
    }

    @Test func secretsAreNotPrinted() throws {
        let key = try Ed25519.PrivateKey(seed: hex(rfc8032[0].seed))
        for text in [key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)"] {
            #expect(!text.contains(rfc8032[0].seed))
            #expect(text.contains("redacted") || text.contains(rfc8032[0].publicKey))
        }
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(rfc8032[0].seed) && !dumped.contains("9d61b19d"))
    }
}

@Suite("X25519 (RFC 7748, libsodium)")
struct X25519Tests {
    /// RFC 7748 §5.2 single-step vectors (the second input u has its top bit set, which must be ignored).
    @Test(arguments: [
        ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
         "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
         "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
        ("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
         "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
         "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
    ])
    func scalarMultiplication(_ scalar: String, _ u: String, _ expected: String) throws {
        let key = try X25519.PrivateKey(rawRepresentation: hex(scalar))
        #expect(try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: hex(u))) == hex(expected))
    }

    /// RFC 7748 §5.2 iterated vector after 1 and 1 000 iterations (the 1 000 000 one is too slow here).
    @Test func iterated() throws {
        var k = [UInt8(9)] + [UInt8](repeating: 0, count: 31)
        var u = k
        for iteration in 1...1000 {
            let result = try X25519.PrivateKey(rawRepresentation: k).sharedSecret(with: X25519.PublicKey(rawRepresentation: u))
            u = k
            k = result
            if iteration == 1 { #expect(k == hex("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079")) }
        }
        #expect(k == hex("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"))
    }

    /// RFC 7748 §6.1 Diffie–Hellman example.
    @Test func diffieHellman() throws {
        let alice = try X25519.PrivateKey(rawRepresentation: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519.PrivateKey(rawRepresentation: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(alice.publicKey.rawRepresentation == hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(bob.publicKey.rawRepresentation == hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try alice.sharedSecret(with: bob.publicKey) == shared)
        #expect(try bob.sharedSecret(with: alice.publicKey) == shared)
    }

    /// Low-order peer keys give an all-zero secret, which is refused (u = 0 and u = 1 are of small order).
    @Test(arguments: ["0000000000000000000000000000000000000000000000000000000000000000",
                      "0100000000000000000000000000000000000000000000000000000000000000"])
    func rejectsAllZeroSharedSecret(_ u: String) throws {
        let key = X25519.PrivateKey()
        let error = #expect(throws: CryptoError.self) { try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: hex(u))) }
        #expect(error?.kind == .invalidKey)
    }

    @Test func randomKeysAgree() throws {
        let a = X25519.PrivateKey(), b = X25519.PrivateKey()
        #expect(try a.sharedSecret(with: b.publicKey) == b.sharedSecret(with: a.publicKey))
        #expect(try X25519.PrivateKey(rawRepresentation: a.rawRepresentation).publicKey == a.publicKey)
        #expect(!a.description.contains(a.rawRepresentation.hexString))
        #expect(throws: CryptoError.self) { try X25519.PrivateKey(rawRepresentation: [1, 2, 3]) }
    }
}

@Suite("ChaCha20-Poly1305 (RFC 8439, libsodium)")
struct ChaChaPolyTests {
    static let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
    static let aad = hex("50515253c0c1c2c3c4c5c6c7")
    static let key = Array(UInt8(0x80)...0x9f)
    static let nonce = hex("070000004041424344454647")
    static let ciphertext = hex("""
        d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b
        1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc
        3ff4def08e4b7a9de576d26586cec64b6116
        """)
    static let tag = hex("1ae10b594f09e26a7e902ecbd0600691")

    /// RFC 8439 §2.8.2 AEAD example.
    @Test func rfc8439Example() throws {
        let sealed = try ChaChaPoly.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticating: Self.aad)
        #expect(sealed == Self.ciphertext + Self.tag)
        let detached = try ChaChaPoly.sealDetached(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticating: Self.aad)
        #expect(detached.ciphertext == Self.ciphertext && detached.tag == Self.tag)
        #expect(try ChaChaPoly.open(sealed, key: Self.key, nonce: Self.nonce, authenticating: Self.aad) == Self.plaintext)
        #expect(try ChaChaPoly.openDetached(Self.ciphertext, tag: Self.tag, key: Self.key, nonce: Self.nonce,
                                            authenticating: Self.aad) == Self.plaintext)
    }

    @Test func tamperingFailsAuthentication() throws {
        let sealed = Self.ciphertext + Self.tag
        var cases: [([UInt8], [UInt8], [UInt8], [UInt8])] = []  // sealed, key, nonce, aad
        for index in [0, 57, sealed.count - 1] {
            var modified = sealed
            modified[index] ^= 0x80
            cases.append((modified, Self.key, Self.nonce, Self.aad))
        }
        var otherKey = Self.key
        otherKey[0] ^= 1
        cases.append((sealed, otherKey, Self.nonce, Self.aad))
        cases.append((sealed, Self.key, hex("070000004041424344454648"), Self.aad))
        cases.append((sealed, Self.key, Self.nonce, Self.aad.dropLast()))
        for (sealed, key, nonce, aad) in cases {
            let error = #expect(throws: CryptoError.self) { try ChaChaPoly.open(sealed, key: key, nonce: nonce, authenticating: aad) }
            #expect(error?.kind == .verificationFailed)
        }
    }

    @Test func emptyMessageAndSizeChecks() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(12)
        let sealed = try ChaChaPoly.seal([UInt8](), key: key, nonce: nonce)
        #expect(sealed.count == 16)
        #expect(try ChaChaPoly.open(sealed, key: key, nonce: nonce) == [])
        #expect(throws: CryptoError.self) { try ChaChaPoly.seal([1], key: key.dropLast(), nonce: nonce) }
        #expect(throws: CryptoError.self) { try ChaChaPoly.seal([1], key: key, nonce: nonce + [0]) }
        let short = #expect(throws: CryptoError.self) { try ChaChaPoly.open([1, 2, 3], key: key, nonce: nonce) }
        #expect(short?.kind == .invalidInput)
    }
}

@Suite("Random bytes and library versions")
struct MiscellaneousTests {
    @Test func secureRandom() {
        let first = SecureRandom.bytes(32), second = SecureRandom.bytes(32)
        #expect(first.count == 32 && first != second)
        #expect(SecureRandom.bytes(0).isEmpty && SecureRandom.bytes(-5).isEmpty)
        var buffer = [UInt8](repeating: 0, count: 64)
        SecureRandom.fill(&buffer)
        #expect(buffer.contains { $0 != 0 })
    }

    @Test func versions() {
        #expect(CryptoLibraries.opensslVersion.hasPrefix("OpenSSL 3."))
        #expect(CryptoLibraries.libsodiumVersion == "1.0.18")
    }
}

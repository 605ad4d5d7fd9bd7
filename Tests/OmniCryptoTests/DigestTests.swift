import Testing
import OmniCrypto

/// Known answers from the NIST CSRC "Example Values" for FIPS 180-4 (SHA_All.pdf; the same values appear in
/// FIPS 180-2 Appendices A–C): the one-block "abc", the multi-block 448-bit / 896-bit messages, and one
/// million repetitions of "a".
struct SHAVector: Sendable, CustomTestStringConvertible {
    let algorithm: DigestAlgorithm
    let abc: String
    let multiBlock: String
    let millionA: String
    var testDescription: String { algorithm.rawValue }

    /// FIPS 180-4 uses the 448-bit message for the 512-bit-block digests and the 896-bit one for SHA-384/512.
    var multiBlockMessage: [UInt8] {
        switch algorithm {
        case .sha384, .sha512:
            Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)
        default:
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        }
    }
}

let shaVectors: [SHAVector] = [
    SHAVector(algorithm: .sha1, abc: "a9993e364706816aba3e25717850c26c9cd0d89d",
              multiBlock: "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
              millionA: "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
    SHAVector(algorithm: .sha224, abc: "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
              multiBlock: "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
              millionA: "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"),
    SHAVector(algorithm: .sha256, abc: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
              multiBlock: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
              millionA: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    SHAVector(algorithm: .sha384,
              abc: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
              multiBlock: "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
              millionA: "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"),
    SHAVector(algorithm: .sha512,
              abc: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
              multiBlock: "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
              millionA: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
]

/// The typed one-shot API of each algorithm (the signatures other targets call).
func oneShot(_ algorithm: DigestAlgorithm, _ bytes: [UInt8]) -> [UInt8] {
    switch algorithm {
    case .sha1: Insecure.SHA1.hash(bytes)
    case .sha224: SHA224.hash(bytes)
    case .sha256: SHA256.hash(bytes)
    case .sha384: SHA384.hash(bytes)
    case .sha512: SHA512.hash(bytes)
    }
}

/// The incremental hasher of each algorithm, fed `chunks` in order.
func incremental(_ algorithm: DigestAlgorithm, _ chunks: [[UInt8]]) -> [UInt8] {
    func run<H: HashFunction>(_ hasher: DigestHasher<H>) -> [UInt8] {
        var hasher = hasher
        for chunk in chunks { hasher.update(chunk) }
        return hasher.finalize()
    }
    switch algorithm {
    case .sha1: return run(Insecure.SHA1.Hasher())
    case .sha224: return run(SHA224.Hasher())
    case .sha256: return run(SHA256.Hasher())
    case .sha384: return run(SHA384.Hasher())
    case .sha512: return run(SHA512.Hasher())
    }
}

@Suite("SHA-1 and SHA-2 (FIPS 180-4 example values)")
struct DigestTests {
    @Test(arguments: shaVectors)
    func oneShotKnownAnswers(_ vector: SHAVector) {
        #expect(oneShot(vector.algorithm, Array("abc".utf8)) == hex(vector.abc))
        #expect(oneShot(vector.algorithm, vector.multiBlockMessage) == hex(vector.multiBlock))
        #expect(vector.algorithm.hash(Array("abc".utf8)) == hex(vector.abc))
        #expect(vector.algorithm.byteCount == hex(vector.abc).count)
    }

    /// One million "a" fed as 1000 updates of 1000 bytes through the incremental API.
    @Test(arguments: shaVectors)
    func millionAIncremental(_ vector: SHAVector) {
        let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        #expect(incremental(vector.algorithm, Array(repeating: thousand, count: 1000)) == hex(vector.millionA))
    }

    /// Splitting the input at every position gives the one-shot digest (crosses the 64/128-byte block edges).
    @Test(arguments: DigestAlgorithm.allCases)
    func everySplitMatchesOneShot(_ algorithm: DigestAlgorithm) {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let expected = oneShot(algorithm, message)
        for split in 0...message.count {
            let chunks = [Array(message[..<split]), Array(message[split...])]
            #expect(incremental(algorithm, chunks) == expected, "split at \(split)")
        }
    }

    @Test func emptyInput() {
        #expect(SHA256.hash([UInt8]()) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        #expect(SHA256.Hasher().finalize() == SHA256.hash([UInt8]()))
    }

    /// Hashers are values: a copy continues independently, and finalize leaves the state usable.
    @Test func hasherValueSemantics() {
        var first = SHA256.Hasher()
        first.update(Array("ab".utf8))
        var second = first
        second.update(Array("c".utf8))
        #expect(second.finalize() == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(first.finalize() == SHA256.hash(Array("ab".utf8)))
        first.update(Array("c".utf8))
        #expect(first.finalize() == second.finalize())
    }

    /// Non-array inputs (slices, lazily mapped collections) hash like the same bytes in an array.
    @Test func nonContiguousCollections() {
        let bytes = Array("The quick brown fox".utf8)
        let mapped = bytes.lazy.map { $0 }
        #expect(SHA512.hash(mapped) == SHA512.hash(bytes))
        #expect(SHA512.hash(bytes[4...]) == SHA512.hash(Array(bytes[4...])))
    }
}

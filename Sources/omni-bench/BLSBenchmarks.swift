import OmniBLS

extension Benchmark {
    // An IC mainnet delegation certificate signature by the root key (46-byte "ic-state-root" message).
    private static let blsPublicKey = blsHex(
        "814c0e6ec71fab583b08bd81373c255c3c371b2e84863c98a4f1e08b74235d14fb5d9c0cd546d9685f913a0c0b2cc534"
        + "1583bf4b4392e467db96d65b9bb4cb717112f8472e0d5a4d14505ffd7484b01291091c5f87b98883463f98091a0baaae")
    private static let blsMessage = blsHex("0d69632d73746174652d726f6f74e6c01e909b4923345ce5970962bcfe3004bfd8474a21dae28f50692502f46d90")
    private static let blsSignature = blsHex(
        "ace9fcdd9bc977e05d6328f889dc4e7c99114c737a494653cb27a1f55c06f4555e0f160980af5ead098acc195010b2f7")

    /// One full verification from bytes: both decompressions with subgroup checks, hash_to_G1, two Miller loops,
    /// one final exponentiation (the work `Tests/Peers/bench_bls.py` times in blst).
    static let blsVerify = Benchmark(name: "bls-verify", defaultIterations: 300) {
        guard try BLS.verify(signature: blsSignature, publicKey: blsPublicKey, message: blsMessage) == .valid else {
            throw BLSError(.notOnCurve, .signature, detail: "benchmark signature does not verify")
        }
        return { _ = try? BLS.verify(signature: blsSignature, publicKey: blsPublicKey, message: blsMessage) }
    }

    /// The same against a decoded key (decompression, subgroup check and Miller-loop lines done once).
    static let blsVerifyDecodedKey = Benchmark(name: "bls-verify-decoded-key", defaultIterations: 300) {
        let key = try BLSPublicKey(compressed: blsPublicKey)
        return { _ = try? BLS.verify(signature: blsSignature, publicKey: key, message: blsMessage) }
    }

    /// hash_to_G1 of the 46-byte certificate message with the IC DST.
    static let blsHashToG1 = Benchmark(name: "bls-hash-to-g1", defaultIterations: 1000) {
        { _ = BLS.hashToG1(blsMessage) }
    }

    /// Public-key decoding: decompression, subgroup check, line precomputation.
    static let blsDecodePublicKey = Benchmark(name: "bls-decode-public-key", defaultIterations: 1000) {
        { _ = try? BLSPublicKey(compressed: blsPublicKey) }
    }

    /// Signature decoding with the subgroup check.
    static let blsDecodeSignature = Benchmark(name: "bls-decode-signature", defaultIterations: 1000) {
        { _ = try? BLSG1Point(compressed: blsSignature) }
    }

    /// Batch of 16 signatures under one key (random linear combination, one final exponentiation).
    static let blsVerifyBatch16 = Benchmark(name: "bls-verify-batch-16", defaultIterations: 50) {
        let key = try BLSPublicKey(compressed: blsPublicKey)
        let items = Array(repeating: BLSBatchItem(signature: blsSignature, publicKey: key, message: blsMessage), count: 16)
        return { _ = BLS.verifyBatch(items) }
    }
}

private func blsHex(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        out.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return out
}

import OmniCrypto

/// sr25519 per operation, the same work `Tests/Peers/bench_sr25519.py` times in schnorrkel (py-sr25519-bindings):
/// a fixed key from the mini secret key 00 01 … 1f, a 64-byte message, context "substrate", a fixed chain code.
extension Benchmark {
    private static let sr25519MiniSecret = (0..<32).map { UInt8($0) }
    private static let sr25519Message = (0..<64).map { UInt8(truncatingIfNeeded: $0 * 7) }
    private static let sr25519ChainCode = (try? Sr25519.ChainCode((0..<32).map { UInt8(255 - $0) }))!

    static let sr25519KeypairFromMiniSecret = Benchmark(name: "sr25519-keypair-from-mini-secret", defaultIterations: 3000) {
        { _ = try? Sr25519.Keypair(miniSecretKey: sr25519MiniSecret) }
    }

    static let sr25519Sign = Benchmark(name: "sr25519-sign", defaultIterations: 3000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        return { _ = keypair.signature(for: sr25519Message) }
    }

    /// Verification from bytes: the public key is decoded each time, as schnorrkel's binding does.
    static let sr25519Verify = Benchmark(name: "sr25519-verify", defaultIterations: 3000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        let signature = keypair.signature(for: sr25519Message)
        let publicKey = keypair.publicKey.rawRepresentation
        guard try keypair.publicKey.isValidSignature(signature, for: sr25519Message) else {
            throw CryptoError(.verificationFailed, "benchmark signature does not verify")
        }
        return { _ = try? Sr25519.PublicKey(rawRepresentation: publicKey).isValidSignature(signature, for: sr25519Message) }
    }

    static let sr25519DeriveHard = Benchmark(name: "sr25519-derive-hard", defaultIterations: 3000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        return { _ = keypair.hardDerived(chainCode: sr25519ChainCode) }
    }

    static let sr25519DeriveSoft = Benchmark(name: "sr25519-derive-soft", defaultIterations: 3000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        return { _ = keypair.softDerived(chainCode: sr25519ChainCode) }
    }

    static let sr25519DeriveSoftPublic = Benchmark(name: "sr25519-derive-soft-public", defaultIterations: 3000) {
        let publicKey = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret).publicKey.rawRepresentation
        return { _ = try? Sr25519.PublicKey(rawRepresentation: publicKey).softDerived(chainCode: sr25519ChainCode) }
    }

    /// VRF rows have no schnorrkel peer on PyPI; `bench_sr25519.py` prints them as omni-only lines.
    static let sr25519VRFSign = Benchmark(name: "sr25519-vrf-sign", defaultIterations: 1000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        var transcript = MerlinTranscript(label: "bench")
        transcript.appendMessage(label: "message", sr25519Message)
        return { _ = keypair.vrfSign(transcript: transcript) }
    }

    static let sr25519VRFVerify = Benchmark(name: "sr25519-vrf-verify", defaultIterations: 1000) {
        let keypair = try Sr25519.Keypair(miniSecretKey: sr25519MiniSecret)
        var transcript = MerlinTranscript(label: "bench")
        transcript.appendMessage(label: "message", sr25519Message)
        let signature = keypair.vrfSign(transcript: transcript)
        return { _ = try? keypair.publicKey.vrfVerify(transcript: transcript, preOutput: signature.preOutput, proof: signature.proof) }
    }
}

/// A Merlin transcript (https://merlin.cool, protocol "Merlin v1.0"): a STROBE-128 object that absorbs labelled
/// messages and squeezes labelled challenges, as schnorrkel's signatures, key derivation and VRFs use it.
///
/// A value type: copy a transcript to fork it (schnorrkel clones its signing context the same way). Each message
/// and challenge is framed by its label and its length as a little-endian u32, so lengths up to 2³² − 1 bytes.
public struct MerlinTranscript: Sendable {
    /// Challenges are capped so that a hostile length cannot ask for an arbitrarily large allocation.
    public static let maximumChallengeByteCount = 1 << 20

    private var strobe: Strobe128

    /// The state every transcript starts from (STROBE-128 keyed with the Merlin protocol label), computed once.
    private static let merlinOrigin = Strobe128(protocolLabel: Array("Merlin v1.0".utf8))

    /// `Transcript::new(label)`: the Merlin origin state, then the application's label as message `dom-sep`.
    public init(label: some Collection<UInt8>) {
        strobe = Self.merlinOrigin
        appendMessage(label: MerlinLabel.domainSeparator, label)
    }

    /// `Transcript::new` with a UTF-8 label.
    public init(label: String) {
        self.init(label: Array(label.utf8))
    }

    /// `append_message(label, message)`: meta-AD(label ‖ LE32(length)), then AD(message).
    public mutating func appendMessage(label: some Collection<UInt8>, _ message: some Collection<UInt8>) {
        strobe.metaAD(label, more: false)
        strobe.metaAD(Self.length(message.count), more: true)
        strobe.ad(message, more: false)
    }

    /// `append_message` with a UTF-8 label.
    public mutating func appendMessage(label: String, _ message: some Collection<UInt8>) {
        appendMessage(label: Array(label.utf8), message)
    }

    /// `append_u64(label, value)`: the value as 8 little-endian bytes.
    public mutating func appendUInt64(label: some Collection<UInt8>, _ value: UInt64) {
        appendMessage(label: label, withUnsafeBytes(of: value.littleEndian) { Array($0) })
    }

    /// `challenge_bytes(label, dest)` for a `count`-byte destination (0…`maximumChallengeByteCount`).
    public mutating func challengeBytes(label: some Collection<UInt8>, count: Int) throws(CryptoError) -> [UInt8] {
        guard (0...Self.maximumChallengeByteCount).contains(count) else {
            throw CryptoError(.invalidInput, "Merlin challenge length must be 0…\(Self.maximumChallengeByteCount) bytes, got \(count)")
        }
        return challenge(label: label, count: count)
    }

    /// `challenge_bytes` with a UTF-8 label.
    public mutating func challengeBytes(label: String, count: Int) throws(CryptoError) -> [UInt8] {
        try challengeBytes(label: Array(label.utf8), count: count)
    }

    /// `challenge_bytes` for the fixed, small lengths the protocols in this layer ask for.
    mutating func challenge(label: some Collection<UInt8>, count: Int) -> [UInt8] {
        strobe.metaAD(label, more: false)
        strobe.metaAD(Self.length(count), more: true)
        return strobe.prf(count: count, more: false)
    }

    /// schnorrkel's `witness_bytes`: Merlin's transcript RNG (`build_rng`) re-keyed with each nonce seed under
    /// `label`, finalised with 32 fresh random bytes, then `count` bytes drawn from it. The transcript itself is
    /// not changed. The result binds the transcript, the secret seeds and fresh randomness (so a weak system RNG
    /// alone cannot repeat a nonce).
    func witnessBytes(label: some Collection<UInt8>, count: Int, nonceSeeds: [[UInt8]]) -> [UInt8] {
        var rng = strobe
        for seed in nonceSeeds {
            rng.metaAD(label, more: false)
            rng.metaAD(Self.length(seed.count), more: true)
            rng.key(seed, more: false)
        }
        var random = SecureRandom.bytes(32)
        defer { wipe(&random) }
        rng.metaAD(MerlinLabel.rng, more: false)
        rng.key(random, more: false)
        // TranscriptRng::fill_bytes: meta-AD(LE32(length)), then PRF.
        rng.metaAD(Self.length(count), more: false)
        return rng.prf(count: count, more: false)
    }

    /// The little-endian u32 framing length. Merlin itself refuses lengths that do not fit 32 bits, and so does
    /// this layer: no input that reaches it is near 4 GiB.
    private static func length(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(UInt32.max), "Merlin message longer than 2^32 - 1 bytes")
        let value = UInt32(count).littleEndian
        return withUnsafeBytes(of: value) { Array($0) }
    }
}

/// The fixed labels of Merlin and schnorrkel, as bytes.
enum MerlinLabel {
    static let domainSeparator = Array("dom-sep".utf8)
    static let rng = Array("rng".utf8)
}

import OmniCodec

/// schnorrkel's VRF (`vrf_sign` / `vrf_verify` over a Merlin transcript, non-malleable input, DLEQ proof in the
/// "Kusama" transcript order that schnorrkel 0.11 uses), as Substrate's BABE and TrUAPI's `sign_vrf` use it.
extension Sr25519 {
    public static let vrfPreOutputByteCount = 32
    public static let vrfProofByteCount = 64

    /// The VRF input point (hashed from the transcript and the signer's key) and the output point
    /// (secret scalar · input), which is published as the 32-byte pre-output.
    public struct VRFInOut: Hashable, Sendable {
        /// The compressed input point.
        public let input: [UInt8]
        /// The compressed output point: the `pre_output` that travels with the proof.
        public let preOutput: [UInt8]

        let inputPoint: RistrettoPoint
        let outputPoint: RistrettoPoint

        init(input: RistrettoPoint, output: RistrettoPoint) {
            inputPoint = input
            outputPoint = output
            self.input = input.encoding
            preOutput = output.encoding
        }

        public static func == (lhs: VRFInOut, rhs: VRFInOut) -> Bool { lhs.input == rhs.input && lhs.preOutput == rhs.preOutput }
        public func hash(into hasher: inout Hasher) { hasher.combine(input); hasher.combine(preOutput) }

        /// schnorrkel `VRFInOut::make_bytes(context)`: `count` (0…1 MiB) output bytes from a "VRFResult"
        /// transcript over the context, the input and the output. This, not the pre-output, is the randomness.
        public func outputBytes(context: some Collection<UInt8>, count: Int) throws(CryptoError) -> [UInt8] {
            var transcript = MerlinTranscript(label: VRFLabel.result)
            transcript.appendMessage(label: [UInt8](), context)
            transcript.appendMessage(label: VRFLabel.resultInput, input)
            transcript.appendMessage(label: VRFLabel.resultOutput, preOutput)
            return try transcript.challengeBytes(label: [UInt8](), count: count)
        }
    }

    /// What `vrfSign` returns: the input/output pair and the 64-byte proof (c ‖ s).
    public struct VRFSignature: Hashable, Sendable {
        public let inOut: VRFInOut
        public let proof: [UInt8]
        /// The 32-byte pre-output (`inOut.preOutput`).
        public var preOutput: [UInt8] { inOut.preOutput }
    }
}

extension Sr25519.PublicKey {
    /// schnorrkel `vrf_hash`: the input point of `transcript` for this signer (non-malleable: the key is
    /// committed as `vrf-nm-pk` before the 64-byte `VRFHash` challenge is mapped to the group).
    func vrfInput(_ transcript: MerlinTranscript) -> RistrettoPoint {
        var transcript = transcript
        transcript.appendMessage(label: VRFLabel.nonMalleablePublicKey, rawRepresentation)
        return RistrettoPoint.fromUniformBytes(transcript.challenge(label: VRFLabel.hash, count: 64))
    }

    /// schnorrkel `vrf_verify(transcript, pre_output, proof)`: the input/output pair when the proof is valid,
    /// nil when it is not. Throws when the pre-output is not 32 bytes of a canonical, non-identity point, or the
    /// proof is not 64 bytes of two canonical scalars.
    public func vrfVerify(
        transcript: MerlinTranscript, preOutput: some Collection<UInt8>, proof: some Collection<UInt8>
    ) throws(CryptoError) -> Sr25519.VRFInOut? {
        guard preOutput.count == Sr25519.vrfPreOutputByteCount else {
            throw CryptoError(.invalidInput, "sr25519 VRF pre-output must be 32 bytes, got \(preOutput.count)")
        }
        guard let output = RistrettoPoint(encoding: preOutput) else {
            throw CryptoError(.invalidInput, "sr25519 VRF pre-output \(Hex.encode(preOutput)) is not a canonical ristretto255 point encoding")
        }
        guard !output.isIdentity else {
            throw CryptoError(.invalidInput, "sr25519 VRF pre-output is the identity point")
        }
        guard proof.count == Sr25519.vrfProofByteCount else {
            throw CryptoError(.invalidInput, "sr25519 VRF proof must be 64 bytes (c ‖ s), got \(proof.count)")
        }
        let proofBytes = Array(proof)
        guard let challenge = RistrettoScalar(canonical: proofBytes[0..<32]) else {
            throw CryptoError(.invalidInput, "sr25519 VRF proof: c (bytes 0…31) is not reduced modulo ℓ")
        }
        guard let response = RistrettoScalar(canonical: proofBytes[32..<64]) else {
            throw CryptoError(.invalidInput, "sr25519 VRF proof: s (bytes 32…63) is not reduced modulo ℓ")
        }
        let inOut = Sr25519.VRFInOut(input: vrfInput(transcript), output: output)
        // dleq_verify: R = c·A + s·B and Hr = c·output + s·input must reproduce the challenge.
        let commitment = point.multiplied(by: challenge) + RistrettoPoint.base(response)
        let inputCommitment = output.multiplied(by: challenge) + inOut.inputPoint.multiplied(by: response)
        var dleq = dleqTranscript(inOut)
        dleq.appendMessage(label: VRFLabel.commitment, commitment.encoding)
        dleq.appendMessage(label: VRFLabel.inputCommitment, inputCommitment.encoding)
        dleq.appendMessage(label: VRFLabel.publicKey, rawRepresentation)
        dleq.appendMessage(label: VRFLabel.output, inOut.preOutput)
        let expected = RistrettoScalar(reducingWide: dleq.challenge(label: VRFLabel.prove, count: 64))
        return expected.equals(challenge) ? inOut : nil
    }

    /// The DLEQ proof's transcript up to its first commitment ("VRF", proto-name DLEQProof, vrf:h).
    func dleqTranscript(_ inOut: Sr25519.VRFInOut) -> MerlinTranscript {
        var transcript = MerlinTranscript(label: VRFLabel.extra)
        transcript.appendMessage(label: SchnorrkelLabel.protocolName, VRFLabel.dleqProof)
        transcript.appendMessage(label: VRFLabel.input, inOut.input)
        return transcript
    }
}

extension Sr25519.Keypair {
    /// schnorrkel `vrf_sign(transcript)`: the input/output pair and a DLEQ proof that the output is this key's
    /// scalar times the input. The proof is randomised; the output is not (it depends on the key and the
    /// transcript only).
    public func vrfSign(transcript: MerlinTranscript) -> Sr25519.VRFSignature {
        let input = publicKey.vrfInput(transcript)
        let inOut = Sr25519.VRFInOut(input: input, output: input.multiplied(by: secretScalar))
        var dleq = publicKey.dleqTranscript(inOut)
        var witnessBytes = witness(dleq, label: VRFLabel.provingWitness, count: 64)
        defer { wipe(&witnessBytes) }
        let nonce = RistrettoScalar(reducingWide: witnessBytes)
        dleq.appendMessage(label: VRFLabel.commitment, RistrettoPoint.base(nonce).encoding)
        dleq.appendMessage(label: VRFLabel.inputCommitment, input.multiplied(by: nonce).encoding)
        dleq.appendMessage(label: VRFLabel.publicKey, publicKey.rawRepresentation)
        dleq.appendMessage(label: VRFLabel.output, inOut.preOutput)
        let challenge = RistrettoScalar(reducingWide: dleq.challenge(label: VRFLabel.prove, count: 64))
        let response = nonce - challenge * secretScalar
        return Sr25519.VRFSignature(inOut: inOut, proof: challenge.bytes + response.bytes)
    }
}

/// The labels of schnorrkel's VRF transcripts, as bytes.
enum VRFLabel {
    static let nonMalleablePublicKey = Array("vrf-nm-pk".utf8)
    static let hash = Array("VRFHash".utf8)
    static let extra = Array("VRF".utf8)
    static let dleqProof = Array("DLEQProof".utf8)
    static let input = Array("vrf:h".utf8)
    static let provingWitness: [UInt8] = Array("proving".utf8) + [0x00] + Array("0".utf8)
    static let commitment = Array("vrf:R=g^r".utf8)
    static let inputCommitment = Array("vrf:h^r".utf8)
    static let publicKey = Array("vrf:pk".utf8)
    static let output = Array("vrf:h^sk".utf8)
    static let prove = Array("prove".utf8)
    static let result = Array("VRFResult".utf8)
    static let resultInput = Array("vrf-in".utf8)
    static let resultOutput = Array("vrf-out".utf8)
}

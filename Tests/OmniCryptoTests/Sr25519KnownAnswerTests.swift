import OmniTestSupport
import Testing
import OmniCodec
import OmniCrypto

/// sr25519 and its VRF against values Rust schnorrkel produced. py-sr25519-bindings has no VRF, so these are the
/// VRF's only check against schnorrkel itself: two proofs w3f/schnorrkel made (at 798ab3e, 2019, whose VRF
/// transcripts are those of schnorrkel 0.11) that ChainSafe/go-schnorrkel's `vrf_test.go` carries as
/// `TestVrfInOut_MakeBytes` and `TestVrfVerify_rust`, and the signature of Warchant/sr25519-crust's `ds.cpp` that
/// go-schnorrkel's `TestVerify_rust` carries.
@Suite("sr25519: known answers from schnorrkel")
struct Sr25519KnownAnswerTests {
    /// `signing_context(b"yo!").bytes(b"meow")`, the transcript of both VRF vectors.
    static var yoMeow: MerlinTranscript {
        var transcript = MerlinTranscript(label: "SigningContext")
        transcript.appendMessage(label: [], Array("yo!".utf8))
        transcript.appendMessage(label: "sign-bytes", Array("meow".utf8))
        return transcript
    }

    @Test func vrfProofFromSchnorrkelVerifiesWithItsInputAndOutputBytes() throws {
        let key = try Sr25519.PublicKey(rawRepresentation: hex("0c84b70beabe60ac6fefa38994a3454fe63d8629455a86e58480063f8bdcca00"))
        let preOutput = hex("d62899f6584a7ff236c107055a332d05cf3b404486e813dff9584a7d404adc30")
        let proof = hex("90c7b305fac7dcb10cdcf2c4a8ed6a033ec34a7f866b895ba568dff403048d0a"
            + "8136861f31facdcbfe8e577bd86cbe70ccccbc1e5424f7d93b7d2d3870c3540f")
        let inOut = try #require(try key.vrfVerify(transcript: Self.yoMeow, preOutput: preOutput, proof: proof))
        #expect(inOut.input.hexString == "bca2b6a1c31a37dfa6cd885cd382b8c2b751d7c0a80c2737daa508699b498044")
        #expect(inOut.preOutput == preOutput)
        #expect(try inOut.outputBytes(context: Array("substrate-babe-vrf".utf8), count: 16).hexString == "a939953200f3788a19fa4aebf789e428")
    }

    @Test func secondVRFProofFromSchnorrkelVerifies() throws {
        let key = try Sr25519.PublicKey(rawRepresentation: hex("c02a48ba140b5396f545a8de16a6a75f7df8b843c50aa16bcd748fa48f7fa654"))
        let preOutput = hex("005b3219d65e772447d8219855b822783da1a4df4c3528f64c26ebcc2b1fb31c")
        let proof = hex("7817eb9f737acfce7be84bf373ff83b5dbf1c8ce1516ee10443156634c8b2700"
            + "666ab588618dbb01eab7f11c1be5850820f6f5cec78e867ce2d95f1eb0f60503")
        let inOut = try #require(try key.vrfVerify(transcript: Self.yoMeow, preOutput: preOutput, proof: proof))
        #expect(inOut.input.hexString == "383427738f502b42aeb16515b10fc7e4b46ed08be59218e776afb437bf25963d")

        // The same proof under another transcript, another key, or with any bit flipped, does not verify.
        var other = MerlinTranscript(label: "SigningContext")
        other.appendMessage(label: [], Array("yo!".utf8))
        other.appendMessage(label: "sign-bytes", Array("not meow".utf8))
        #expect(try key.vrfVerify(transcript: other, preOutput: preOutput, proof: proof) == nil)
        let otherKey = Sr25519.Keypair().publicKey
        #expect(try otherKey.vrfVerify(transcript: Self.yoMeow, preOutput: preOutput, proof: proof) == nil)
        for bit in [0, 7, 100, 255, 300, 505] {
            var tampered = proof
            tampered[bit / 8] ^= 1 << UInt8(bit % 8)
            // A flipped bit may also make a scalar non-canonical, which is refused rather than false.
            let result = Result { () throws(CryptoError) in try key.vrfVerify(transcript: Self.yoMeow, preOutput: preOutput, proof: tampered) }
            #expect((try? result.get()) == nil, "bit \(bit)")
        }
    }

    @Test func signatureFromSchnorrkelVerifies() throws {
        let key = try Sr25519.PublicKey(rawRepresentation: hex("46ebddef8cd9bb167dc30878d7113b7e168e6f0646beffd77d69d39bad76b47a"))
        let signature = hex("4e172314444b8f820bb54c22e95076f220ed25373e5c178234aa6c211d29271244b947e3ff3418ff6b45fd1df1140c8cbff69fc58ee6dc96df70936a2bb74b82")
        let message = Array("this is a message".utf8)
        #expect(try key.isValidSignature(signature, for: message))
        #expect(try !key.isValidSignature(signature, for: message + [0]))
        #expect(try !key.isValidSignature(signature, for: message, context: Array("polkadot".utf8)))
    }
}

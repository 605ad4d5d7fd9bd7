import Testing
@testable import OmniBLS

/// The field has two kernel sets: MULX/ADX assembly (chosen at load time when the CPU supports it) and portable
/// C. The other suites run whichever is active; this one forces the portable kernels, then restores the default.
/// Both produce fully reduced, identical values, so switching while other tests run cannot change their results.
@Suite(.vectors("bls")) struct KernelTests {
    @Test("Portable C kernels: self-test, known answers, hash vectors and decodings agree")
    func portableKernels() throws {
        let assemblyByDefault = CompiledConstants.useAssemblyKernels(true)
        defer { CompiledConstants.useAssemblyKernels(assemblyByDefault) }
        #expect(!CompiledConstants.useAssemblyKernels(false))
        #expect(CompiledConstants.selfTest() == 0)
        var checked = 0
        for vector in try array(try loadObject("bls/ic_bls_known_answers.json"), "cases") {
            let result = VerifyTests.outcome(sig: bytes(hex: try string(vector, "sig")), pk: bytes(hex: try string(vector, "pk")),
                                             msg: bytes(hex: try string(vector, "msg")))
            #expect(VerifyTests.isValid(result) == (vector["valid"] as? Bool), "\(vector["name"] ?? "")")
            checked += 1
        }
        let h2c = try loadObject("bls/rfc9380_J.9.1_BLS12381G1_XMD_SHA-256_SSWU_RO_.json")
        let dst = Array(try string(h2c, "dst").utf8)
        for vector in try array(h2c, "vectors") {
            let p = try #require(vector["P"] as? JSONObject)
            let point = BLS.hashToG1(Array(try string(vector, "msg").utf8), dst: dst)
            #expect(point.affineCoordinates?.x == field(try string(p, "x")))
            checked += 1
        }
        let g2 = try #require(try loadObject("bls/zcash_g2_compressed_multiples.json")["points"] as? [String])
        for (k, text) in g2.prefix(40).enumerated() {
            #expect(try BLSG2Point(compressed: bytes(hex: text)) == BLSG2Point.generator.multiplied(by: scalarBytes(UInt64(k))))
            checked += 1
        }
        #expect(checked == 13 + 5 + 40)
        print("OmniBLSTests: portable kernels: \(checked) vectors checked (assembly kernels available: \(assemblyByDefault))")
    }
}

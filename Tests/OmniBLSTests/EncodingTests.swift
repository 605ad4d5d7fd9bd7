import Testing
@testable import OmniBLS

/// ZCash-format compressed encodings: known multiples of the generators and the Ethereum decoding cases.
@Suite struct EncodingTests {
    @Test("zcash_g1_compressed_multiples: decode k·G1 (k = 0…999), compare with scalar multiplication, re-encode", .vectors("bls"))
    func g1Multiples() throws {
        let file = "bls/zcash_g1_compressed_multiples.json"
        let points = try #require(try loadObject(file)["points"] as? [String])
        let generator = BLSG1Point.generator
        var running = BLSG1Point.identity
        var checked = 0
        for (k, text) in points.enumerated() {
            let encoding = bytes(hex: text)
            let decoded = try BLSG1Point(compressed: encoding)
            let expected = generator.multiplied(by: scalarBytes(UInt64(k)))
            #expect(decoded == expected, "k = \(k)")
            #expect(decoded == running, "k = \(k) (repeated addition)")
            #expect(decoded.compressed == encoding, "k = \(k)")
            #expect(decoded.isIdentity == (k == 0))
            running = running + generator
            checked += 1
        }
        #expect(checked == 1000)
        report(file, checked)
    }

    @Test("zcash_g2_compressed_multiples: decode k·G2 (k = 0…999), compare with scalar multiplication, re-encode", .vectors("bls"))
    func g2Multiples() throws {
        let file = "bls/zcash_g2_compressed_multiples.json"
        let points = try #require(try loadObject(file)["points"] as? [String])
        let generator = BLSG2Point.generator
        var running = BLSG2Point.identity
        var checked = 0
        for (k, text) in points.enumerated() {
            let encoding = bytes(hex: text)
            let decoded = try BLSG2Point(compressed: encoding)
            #expect(decoded == generator.multiplied(by: scalarBytes(UInt64(k))), "k = \(k)")
            #expect(decoded == running, "k = \(k) (repeated addition)")
            #expect(decoded.compressed == encoding, "k = \(k)")
            if k > 0 { #expect(try BLSPublicKey(compressed: encoding).compressed == encoding) }
            running = running + generator
            checked += 1
        }
        #expect(checked == 1000)
        report(file, checked)
    }

    /// The refusal each Ethereum case must produce (by case name), so a right verdict for a wrong reason fails.
    static let ethExpectedKinds: [String: BLSError.Kind] = [
        "deserialization_fails_not_in_G1": .notInSubgroup,
        "deserialization_fails_not_in_G2": .notInSubgroup,
        "deserialization_fails_not_in_curve": .notOnCurve,
        "deserialization_fails_x_equal_to_modulus": .nonCanonical,
        "deserialization_fails_x_greater_than_modulus": .nonCanonical,
        "deserialization_fails_xre_equal_to_modulus": .nonCanonical,
        "deserialization_fails_xim_equal_to_modulus": .nonCanonical,
        "deserialization_fails_xre_greater_than_modulus": .nonCanonical,
        "deserialization_fails_xim_greater_than_modulus": .nonCanonical,
        "deserialization_fails_too_few_bytes": .wrongLength,
        "deserialization_fails_too_many_bytes": .wrongLength,
        "deserialization_fails_infinity_with_true_b_flag": .badInfinityEncoding,
        // c = 1, b = 0, x = 0: on E1 the order-3 point (0, ±2), outside G1; on E2, 4(1 + u) is not a square.
        "deserialization_fails_infinity_with_false_b_flag": .notInSubgroup,
        "g2:deserialization_fails_infinity_with_false_b_flag": .notOnCurve,
        "deserialization_fails_with_wrong_c_flag": .notCompressed,
        "deserialization_fails_with_b_flag_and_x_nonzero": .badInfinityEncoding,
        "deserialization_fails_with_b_flag_and_a_flag_true": .badInfinityEncoding,
        "deserialization_fails_with_mask_bits_111": .badInfinityEncoding,
        "deserialization_fails_with_mask_bits_011": .notCompressed,
        "deserialization_fails_with_mask_bits_001": .notCompressed,
    ]

    @Test("eth_deserialization_g1 / g2: every labelled case, with the expected reason", .vectors("bls"), arguments: [
        ("bls/eth_deserialization_g1.json", 1, 16),
        ("bls/eth_deserialization_g2.json", 2, 18),
    ])
    func ethDeserialization(file: String, group: Int, expectedCount: Int) throws {
        var checked = 0
        for vector in try array(try loadObject(file), "cases") {
            let name = try string(vector, "name")
            let input = bytes(hex: try string(vector, "input"))
            let expected = try #require(vector["expected_decodes"] as? Bool)
            let outcome: Result<[UInt8], BLSError>
            do throws(BLSError) {
                outcome = .success(group == 1 ? try BLSG1Point(compressed: input).compressed
                                              : try BLSG2Point(compressed: input).compressed)
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let reencoded):
                #expect(expected, "\(name) decoded but must fail")
                #expect(reencoded == input, "\(name) re-encodes differently")
            case .failure(let error):
                #expect(!expected, "\(name) refused: \(error)")
                let expectedKind = Self.ethExpectedKinds["g\(group):" + name] ?? Self.ethExpectedKinds[name]
                #expect(error.kind == expectedKind, "\(name): \(error)")
            }
            checked += 1
        }
        #expect(checked == expectedCount)
        report(file, checked)
    }

    @Test("Every refusal names its subject and reason in one line")
    func errorDescriptions() throws {
        var g2 = BLSG2Point.generator.compressed
        g2[48] = 0xff  // x.c0 above p
        #expect(throws: BLSError(.nonCanonical, .g2Point, offset: 48)) { try BLSG2Point(compressed: g2) }
        do {
            _ = try BLSG1Point(compressed: [UInt8](repeating: 0, count: 47))
            Issue.record("47 bytes decoded")
        } catch {
            #expect(error.description == "G1 point has wrong length (47 bytes, expected 48)")
        }
        #expect(BLSError(.notInSubgroup, .signature).description == "signature not in subgroup")
        #expect(BLSInvalidReason.pairingCheckFailed.description == "pairing check failed")
        #expect(BLSVerification.invalid(.pairingCheckFailed).description == "invalid: pairing check failed")
    }
}

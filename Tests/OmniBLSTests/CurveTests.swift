import Foundation
import Testing
import OmniTestSupport
@testable import OmniBLS

/// Curve parameters, compiled-in constants, subgroup tests against the slow oracle, and the pairing.
@Suite struct CurveTests {
    @Test("bls12_381_constants.json: defining relations, generators, endomorphism and Montgomery constants", .vectors("bls"))
    func constants() throws {
        let file = "bls/bls12_381_constants.json"
        let document = try loadObject(file)
        var checked = 0
        let p = BigUInt(hex: try string(document, "p")), r = BigUInt(hex: try string(document, "r"))
        let xAbs = BigUInt(hex: try string(document, "x_abs"))
        let xAbsText = try string(document, "x_abs"), xSignedText = try string(document, "x_signed")
        #expect(xSignedText == "-" + xAbsText)
        #expect(CompiledConstants.xAbs == UInt64(xAbsText.dropFirst(2), radix: 16))
        // r = x⁴ − x² + 1 and p = (x − 1)² r / 3 + x with x = −|x|: (x − 1)² = (|x| + 1)², so p = (|x| + 1)² r / 3 − |x|.
        let x2 = xAbs * xAbs
        #expect(r == x2 * x2 - x2 + BigUInt(1))
        let (third, remainder) = ((xAbs + BigUInt(1)) * (xAbs + BigUInt(1)) * r).divided(by: 3)
        #expect(remainder == 0 && p == third - xAbs)
        #expect(CompiledConstants.all(.modulus) == [p.bytes(width: 48)])
        // Cofactor: #E1(Fp) = h1·r = p + 1 − t with trace t = x + 1 = 1 − |x|, i.e. p + |x|; h_eff = 1 − x.
        let h1 = BigUInt(hex: try string(document, "h1_cofactor_G1"))
        #expect(h1 * r == p + xAbs)
        #expect(BigUInt(hex: try string(document, "h_eff_G1_rfc9380")) == xAbs + BigUInt(1))
        checked += 6
        // Montgomery constants: R = 2^384 mod p, R² mod p, n0 = −p⁻¹ mod 2⁶⁴.
        let montgomery = try #require(document["montgomery_64bit"] as? JSONObject)
        #expect(CompiledConstants.all(.montgomeryR) == [field(try string(montgomery, "R_mod_p"))])
        #expect(CompiledConstants.all(.montgomeryR2) == [field(try string(montgomery, "R2_mod_p"))])
        let n0 = try #require(UInt64(try string(montgomery, "n0_neg_p_inv_mod_2_64").dropFirst(2), radix: 16))
        #expect(CompiledConstants.n0 == n0)
        let pLimbs = try #require(montgomery["p_limbs_le"] as? [String])
        let pLow = try #require(pLimbs.first.flatMap { UInt64($0.dropFirst(2), radix: 16) })
        #expect(pLow &* n0 == UInt64.max, "p·n0 ≡ −1 mod 2⁶⁴")
        checked += 4
        // Generators: coordinates, compressed forms, order r.
        let g1 = try #require(document["G1_generator"] as? JSONObject)
        let g1Point = BLSG1Point.generator
        #expect(g1Point.affineCoordinates?.x == field(try string(g1, "x")))
        #expect(g1Point.affineCoordinates?.y == field(try string(g1, "y")))
        #expect(g1Point.compressed == bytes(hex: try string(g1, "compressed")))
        #expect(g1Point.multiplied(by: r.bytes(width: 32)).isIdentity)
        let g2 = try #require(document["G2_generator"] as? JSONObject)
        let g2Point = BLSG2Point.generator
        let g2Coordinates = try #require(g2Point.affineCoordinates)
        #expect(g2Coordinates.x0 == field(try string(g2, "x_c0")))
        #expect(g2Coordinates.x1 == field(try string(g2, "x_c1")))
        #expect(g2Coordinates.y0 == field(try string(g2, "y_c0")))
        #expect(g2Coordinates.y1 == field(try string(g2, "y_c1")))
        #expect(g2Point.compressed == bytes(hex: try string(g2, "compressed")))
        #expect(g2Point.multiplied(by: r.bytes(width: 32)).isIdentity)
        #expect(BLSG1Point.identity.compressed == bytes(hex: try string(document, "G1_infinity_compressed")))
        #expect(BLSG2Point.identity.compressed == bytes(hex: try string(document, "G2_infinity_compressed")))
        checked += 10
        // Endomorphisms: β and the ψ constants as compiled in; β is a cube root of unity.
        let beta = try string(try #require(document["G1_endomorphism"] as? JSONObject), "beta")
        #expect(CompiledConstants.all(.g1Beta) == [field(beta)])
        let roots = try #require(document["cube_roots_of_unity_mod_p"] as? [String])
        #expect(roots.contains(beta))
        let betaValue = BigUInt(hex: beta)
        #expect(modulo(betaValue * betaValue * betaValue, p) == BigUInt(1))
        let psi = try #require(document["G2_endomorphism"] as? JSONObject)
        #expect(CompiledConstants.all(.psiCx) == [field(try string(psi, "psi_cx_c0")), field(try string(psi, "psi_cx_c1"))])
        #expect(CompiledConstants.all(.psiCy) == [field(try string(psi, "psi_cy_c0")), field(try string(psi, "psi_cy_c1"))])
        checked += 4
        // The order-3 point (0, 2) is on E1, outside G1, and [3]P = O.
        let torsion = try #require(document["order3_point_on_E1_not_in_G1"] as? JSONObject)
        let order3 = try BLSG1Point(x: field(try string(torsion, "x")), y: field(try string(torsion, "y")))
        #expect(!order3.isInSubgroup && !order3.isInSubgroupByOrder)
        #expect(order3.multiplied(by: [3]).isIdentity)
        #expect(Array(try string(document, "ic_dst").utf8) == BLS.icDST)
        #expect(bytes(hex: try string(document, "ic_bls_public_key_der_prefix")) == BLS.icPublicKeyDERPrefix)
        checked += 4
        #expect(checked == 28)
        report(file, checked)
    }

    /// a mod m by repeated subtraction of shifted m (test helper; a < m·2^k for small k).
    private func modulo(_ a: BigUInt, _ m: BigUInt) -> BigUInt {
        var value = a
        var shifted: [BigUInt] = [m]
        while let last = shifted.last, !(greater(last, value)) { shifted.append(last + last) }
        for step in shifted.reversed() where !greater(step, value) { value = value - step }
        while !greater(m, value) { value = value - m }
        return value
    }

    private func greater(_ a: BigUInt, _ b: BigUInt) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count > b.limbs.count }
        for (x, y) in zip(a.limbs.reversed(), b.limbs.reversed()) where x != y { return x > y }
        return false
    }

    @Test("C layer self-test: Frobenius, cyclotomic squaring, sparse lines, inverses, square roots")
    func selfTest() {
        #expect(CompiledConstants.selfTest() == 0)
    }

    @Test("G1 subgroup test agrees with [r]P = O on points outside and inside G1")
    func g1SubgroupAgainstOracle() throws {
        var outside = 0
        for seed in 1...24 {
            let u = [UInt8](repeating: 0, count: 16) + (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ seed &* 101) }
            let point = try BLS.mapToG1(fieldElement: u)
            #expect(point.isInSubgroup == point.isInSubgroupByOrder, "seed \(seed)")
            outside += point.isInSubgroupByOrder ? 0 : 1
            let cleared = point.clearingCofactor()
            #expect(cleared.isInSubgroup && cleared.isInSubgroupByOrder)
            // A subgroup point plus the order-3 point leaves the subgroup.
            let shifted = cleared + (try BLSG1Point(x: field("0x0"), y: field("0x2")))
            #expect(!shifted.isInSubgroup && !shifted.isInSubgroupByOrder)
            #expect(throws: BLSError(.notInSubgroup, .g1Point)) { try BLSG1Point(compressed: shifted.compressed) }
        }
        #expect(outside == 24)
    }

    @Test("G2 subgroup test (ψ and the line precomputation) agrees with [r]Q = O", .vectors("bls"))
    func g2SubgroupAgainstOracle() throws {
        let lines = try Vectors.text("bls/ic_bls_generated_seed20260101_n10.jsonl").split(separator: "\n")
        var outside = 0, inside = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? JSONObject)
            let kind = try string(object, "case")
            guard kind == "pk_not_in_subgroup" || kind == "pk_plus_torsion" || kind.hasPrefix("valid") else { continue }
            let pk = bytes(hex: try string(object, "pk"))
            let point = try BLSG2Point(compressed: pk, checkingSubgroup: false)
            let member = point.isInSubgroupByOrder
            #expect(point.isInSubgroup == member, "\(kind)")
            #expect(member == kind.hasPrefix("valid"), "\(kind)")
            let viaLines: Bool
            do throws(BLSError) {
                _ = try BLSPublicKey(compressed: pk)
                viaLines = true
            } catch {
                #expect(error == BLSError(.notInSubgroup, .publicKey))
                viaLines = false
            }
            #expect(viaLines == member, "\(kind)")
            if member { inside += 1 } else { outside += 1 }
        }
        #expect(outside == 20 && inside >= 2)
    }

    @Test("Pairing: bilinearity, non-degeneracy, identities")
    func pairing() {
        let g1 = BLSG1Point.generator, g2 = BLSG2Point.generator
        let a: [UInt8] = [0x1d, 0x2c, 0x3b, 0x4a, 0x59, 0x68, 0x77, 0x86, 0x95]
        let b: [UInt8] = [0x07, 0x16, 0x25, 0x34]
        let aP = g1.multiplied(by: a), bQ = g2.multiplied(by: b)
        let abP = aP.multiplied(by: b)
        #expect(BLS.pairingProductIsOne([(aP, bQ), (-abP, g2)]))
        #expect(BLS.pairingProductIsOne([(aP, bQ), (-aP, bQ)]))
        #expect(!BLS.pairingProductIsOne([(aP, bQ), (-aP, g2)]))
        #expect(!BLS.pairingProductIsOne([(g1, g2)]))
        #expect(BLS.pairingProductIsOne([(BLSG1Point.identity, g2), (g1, BLSG2Point.identity)]))
        #expect(BLS.pairingProductIsOne([]))
        // e(P, Q)^r = 1 is implied by e([r]P, Q) = e(O, Q).
        #expect(BLS.pairingProductIsOne([(g1 + g1, g2), (-g1, g2 + g2)]))
    }
}


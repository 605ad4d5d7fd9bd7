import Testing
@testable import OmniBLS

/// RFC 9380 vectors for the suite BLS12381G1_XMD:SHA-256_SSWU_{RO,NU}_ and expand_message_xmd.
@Suite struct HashToCurveTests {
    @Test("K.1 and K.2: expand_message_xmd(SHA-256), short and oversize DST", .vectors("bls"), arguments: [
        ("bls/rfc9380_K.1_expand_message_xmd_SHA-256.json", 10),
        ("bls/rfc9380_K.2_expand_message_xmd_SHA-256_long_DST.json", 10),
    ])
    func expandMessage(file: String, expectedCount: Int) throws {
        let document = try loadObject(file)
        let dst = Array(try string(document, "DST").utf8)
        let tests = try array(document, "tests")
        var checked = 0
        for test in tests {
            let message = Array(try string(test, "msg").utf8)
            let length = Int(try string(test, "len_in_bytes").dropFirst(2), radix: 16) ?? -1
            #expect(BLS.dstPrime(dst) == bytes(hex: try string(test, "DST_prime")))
            let uniform = try BLS.expandMessageXMD(message, dst: dst, length: length)
            #expect(uniform == bytes(hex: try string(test, "uniform_bytes")), "msg \(test["msg"] ?? "")")
            checked += 1
        }
        #expect(checked == expectedCount)
        report(file, checked)
    }

    @Test("expand_message_xmd refuses lengths above 255 blocks")
    func expandMessageLimits() throws {
        #expect(throws: BLSError(.invalidParameter, .parameter, detail: "expand_message_xmd length 8161, limit 8160")) {
            try BLS.expandMessageXMD([], dst: [1], length: 8161)
        }
        #expect(try BLS.expandMessageXMD([1, 2], dst: [3], length: 8160).count == 8160)
        #expect(try BLS.expandMessageXMD([1, 2], dst: [3], length: 0).isEmpty)
    }

    @Test("J.9.1: hash_to_curve, every intermediate value (u0, u1, Q0, Q1, P)", .vectors("bls"))
    func hashToCurve() throws {
        let file = "bls/rfc9380_J.9.1_BLS12381G1_XMD_SHA-256_SSWU_RO_.json"
        let document = try loadObject(file)
        let dst = Array(try string(document, "dst").utf8)
        var checked = 0
        for vector in try array(document, "vectors") {
            let message = Array(try string(vector, "msg").utf8)
            let u = try #require(vector["u"] as? [String])
            #expect(try BLS.hashToField(message, dst: dst, count: 2) == u.map(field))
            let q0 = try BLS.mapToG1(fieldElement: field(u[0]))
            let q1 = try BLS.mapToG1(fieldElement: field(u[1]))
            try expectPoint(q0, try #require(vector["Q0"] as? JSONObject))
            try expectPoint(q1, try #require(vector["Q1"] as? JSONObject))
            let p = BLS.hashToG1(message, dst: dst)
            try expectPoint(p, try #require(vector["P"] as? JSONObject))
            #expect((q0 + q1).clearingCofactor() == p)
            #expect(p.isInSubgroup)
            checked += 1
        }
        #expect(checked == 5)
        report(file, checked)
    }

    @Test("J.9.2: encode_to_curve (u, Q = map_to_curve(u), P)", .vectors("bls"))
    func encodeToCurve() throws {
        let file = "bls/rfc9380_J.9.2_BLS12381G1_XMD_SHA-256_SSWU_NU_.json"
        let document = try loadObject(file)
        let dst = Array(try string(document, "dst").utf8)
        var checked = 0
        for vector in try array(document, "vectors") {
            let message = Array(try string(vector, "msg").utf8)
            let u = try #require(vector["u"] as? [String])
            #expect(try BLS.hashToField(message, dst: dst, count: 1) == u.map(field))
            let q = try BLS.mapToG1(fieldElement: field(u[0]))
            try expectPoint(q, try #require(vector["Q"] as? JSONObject))
            let p = BLS.encodeToG1(message, dst: dst)
            try expectPoint(p, try #require(vector["P"] as? JSONObject))
            #expect(q.clearingCofactor() == p)
            checked += 1
        }
        #expect(checked == 5)
        report(file, checked)
    }

    @Test("map_to_curve edge cases: u = 0 (SSWU exceptional case), 1, 2, p − 1, (p − 1)/2", .vectors("bls"))
    func mapEdgeCases() throws {
        let file = "bls/sswu_map_edge_cases.json"
        var checked = 0
        for vector in try array(try loadObject(file), "cases") {
            let q = try BLS.mapToG1(fieldElement: field(try string(vector, "u")))
            try expectPoint(q, try #require(vector["Q"] as? JSONObject))
            let p = q.clearingCofactor()
            try expectPoint(p, try #require(vector["P"] as? JSONObject))
            #expect(p.compressed == bytes(hex: try string(vector, "P_compressed")))
            checked += 1
        }
        #expect(checked == 5)
        report(file, checked)
    }

    @Test("E.2: SSWU and isogeny constants equal the compiled-in ones", .vectors("bls"))
    func isogenyConstants() throws {
        let file = "bls/rfc9380_E.2_bls12381g1_sswu_iso11_constants.json"
        let document = try loadObject(file)
        var checked = 0
        for (key, name) in [("A_prime", CompiledConstants.Name.sswuA), ("B_prime", .sswuB), ("Z", .sswuZ)] {
            #expect(CompiledConstants.all(name) == [field(try string(document, key))], "\(key)")
            checked += 1
        }
        for (key, name) in [("x_num", CompiledConstants.Name.isoXNum), ("x_den", .isoXDen),
                            ("y_num", .isoYNum), ("y_den", .isoYDen)] {
            let published = try #require(document[key] as? [String]).map(field)
            #expect(CompiledConstants.all(name) == published, "\(key)")
            checked += published.count
        }
        #expect(CompiledConstants.hEff == UInt64(try string(document, "h_eff").dropFirst(2), radix: 16))
        #expect(CompiledConstants.all(.modulus) == [field(try string(document, "p"))])
        checked += 2
        #expect(checked == 3 + 12 + 11 + 16 + 16 + 2)
        report(file, checked)
    }

    @Test("map_to_curve refuses field elements that are not canonical")
    func mapRefusesNonCanonical() throws {
        let p = field("0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab")
        #expect(throws: BLSError(.nonCanonical, .fieldElement, offset: 0)) { try BLS.mapToG1(fieldElement: p) }
        #expect(throws: BLSError.self) { try BLS.mapToG1(fieldElement: [1, 2, 3]) }
    }

    private func expectPoint(_ point: BLSG1Point, _ expected: JSONObject,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let coordinates = try #require(point.affineCoordinates, sourceLocation: sourceLocation)
        #expect(coordinates.x == field(try string(expected, "x")), sourceLocation: sourceLocation)
        #expect(coordinates.y == field(try string(expected, "y")), sourceLocation: sourceLocation)
        // The same point through the public affine constructor.
        #expect(try BLSG1Point(x: coordinates.x, y: coordinates.y) == point, sourceLocation: sourceLocation)
    }
}

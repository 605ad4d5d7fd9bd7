import OmniCodec
import Testing

@Suite("CBOR encoder")
struct CBOREncoderTests {
    @Test("integer, length and tag heads use the shortest form at every boundary")
    func preferredHeads() throws {
        let cases: [(CBOR, String)] = [
            (0, "00"), (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"), (65535, "19ffff"),
            (65536, "1a00010000"), (.unsigned(0xFFFF_FFFF), "1affffffff"), (.unsigned(0x1_0000_0000), "1b0000000100000000"),
            (.unsigned(.max), "1bffffffffffffffff"), (-1, "20"), (-24, "37"), (-25, "3818"), (-257, "390100"),
            (.negative(.max), "3bffffffffffffffff"), (.integer(.min), "3b7fffffffffffffff"),
            (.bytes([UInt8](repeating: 7, count: 24)), "5818" + String(repeating: "07", count: 24)),
            (.text(String(repeating: "a", count: 23)), "77" + String(repeating: "61", count: 23)),
            (.tagged(24, 0), "d81800"), (.tagged(.max, 0), "dbffffffffffffffff00"),
            (.simple(0), "e0"), (.simple(19), "f3"), (.simple(32), "f820"), (.simple(255), "f8ff"),
            (.simple(20), "f4"), (.bool(true), "f5"), (.null, "f6"), (.undefined, "f7"),
        ]
        for (item, hex) in cases {
            #expect(Hex.encode(try item.encoded()) == hex, "\(item)")
        }
    }

    @Test("simple values 24…31 have no encoding")
    func reservedSimple() {
        for n in UInt8(24)...31 {
            #expect(throws: CodecError.self) { try CBOR.array([.simple(n)]).encoded() }
        }
        do {
            _ = try CBOR.map([("k", [0, .simple(25)])]).encoded()
            Issue.record("encoded a reserved simple value")
        } catch {
            #expect(error.path == "$.\"k\"[1]")
        }
    }

    @Test("floats: recorded width, widened when it would lose precision, or shortest on request")
    func floatWidths() throws {
        let shortest = CBOREncodingOptions(floatWidths: .shortest)
        let cases: [(CBOR, String, String)] = [
            (.float(1.0, width: .double), "fb3ff0000000000000", "f93c00"),
            (.float(1.0, width: .single), "fa3f800000", "f93c00"),
            (.float(0.1, width: .half), "fb3fb999999999999a", "fb3fb999999999999a"),
            (.float(100000.0, width: .half), "fa47c35000", "fa47c35000"),
            (.float(-0.0, width: .double), "fb8000000000000000", "f98000"),
            (.float(.infinity, width: .single), "fa7f800000", "f97c00"),
            (.float(.nan, width: .double), "fb7ff8000000000000", "f97e00"),
            (.float(5.960464477539063e-8, width: .double), "fb3e70000000000000", "f90001"),
            (.float(Double(Float.leastNonzeroMagnitude), width: .double), "fb36a0000000000000", "fa00000001"),
            (.float(Double(bitPattern: 0x7FF0_0000_2000_0000), width: .single), "fa7f800001", "fa7f800001"),
            (.float(Double(bitPattern: 0x7FF0_0000_0000_0001), width: .half), "fb7ff0000000000001", "fb7ff0000000000001"),
        ]
        for (item, recorded, short) in cases {
            #expect(Hex.encode(try item.encoded()) == recorded, "\(item)")
            #expect(Hex.encode(try item.encoded(options: shortest)) == short, "\(item)")
        }
        #expect(CBOR(floatLiteral: 1.5) == .float(1.5, width: .half))
        #expect(Hex.encode(try CBOR(floatLiteral: 1.1).encoded()) == "fb3ff199999999999a")
    }

    @Test("canonical map order is bytewise order of the encoded keys (RFC 8949 §4.2.1)")
    func canonicalKeyOrder() throws {
        let map: CBOR = .map([(false, 0), ([-1], 0), ([100], 0), ("aa", 0), ("z", 0), (-1, 0), (100, 0), (10, 0)])
        let sorted = try map.encoded(options: .canonical)
        #expect(Hex.encode(sorted) == "a8" + "0a00" + "186400" + "2000" + "617a00" + "62616100" + "81186400" + "812000" + "f400")
        // Unsorted by default, and canonical output is accepted by the canonical decoder.
        #expect(try map.encoded().starts(with: [0xA8, 0xF4]))
        #expect(try CBOR.decode(sorted, options: .canonical) == .map(
            [(10, 0), (100, 0), (-1, 0), ("z", 0), ("aa", 0), ([100], 0), ([-1], 0), (false, 0)]))
    }

    @Test("indefinite-length cases are written as such, or definite on request")
    func indefiniteOutput() throws {
        let item = CBOR.indefiniteMap([
            ("a", .indefiniteArray([1, .byteChunks([[1], []]), .textChunks(["x", "yz"])])),
        ])
        #expect(Hex.encode(try item.encoded()) == "bf 6161 9f 01 5f 4101 40 ff 7f 6178 62797a ff ff ff".filter { $0 != " " })
        #expect(Hex.encode(try item.encoded(options: .canonical)) == "a1 6161 83 01 4101 6378797a".filter { $0 != " " })
        #expect(Hex.encode(try CBOR.indefiniteArray([]).encoded()) == "9fff")
        #expect(Hex.encode(try CBOR.byteChunks([]).encoded()) == "5fff")
    }

    @Test("encode(into:) appends to an existing buffer")
    func appends() throws {
        var buffer: [UInt8] = [0xAA]
        try CBOR.text("a").encode(into: &buffer)
        try CBOR.unsigned(1).encode(into: &buffer)
        #expect(buffer == [0xAA, 0x61, 0x61, 0x01])
    }

    @Test("nesting beyond the encoder depth limit is refused, not a stack overflow")
    func depthLimit() throws {
        var item: CBOR = 0
        for _ in 0..<20 { item = [item] }
        #expect(throws: CodecError.self) { try item.encoded(options: CBOREncodingOptions(maxDepth: 10)) }
        #expect(try item.encoded(options: CBOREncodingOptions(maxDepth: 20)).count == 21)
    }

    @Test("diagnostic notation of model values")
    func diagnostics() {
        let item: CBOR = .map([
            ("ü", .textChunks(["a\n", "\u{1}"])), (.negative(.max), .simple(99)),
            (.tagged(2, .bytes([1])), [.float(-1.5, width: .half), .float(.infinity, width: .half), .undefined]),
        ])
        #expect(item.diagnostic() == "{\"ü\": (_ \"a\\n\", \"\\u0001\"), -18446744073709551616: simple(99), 2(h'01'): [-1.5, Infinity, undefined]}")
        #expect(item.diagnostic(asciiOnly: true).hasPrefix("{\"\\u00fc\""))
        #expect("\(CBOR.indefiniteMap([]))" == "{_ }")
    }
}

import OmniCodec
import Testing

/// RFC 8949 Appendix A, Table 6: every example, typed in as (diagnostic, encoded).
/// Floats are compared by value (the RFC's decimal spellings vary), bignums by their decimal value.
private let appendixA: [(diagnostic: String, hex: String)] = [
    ("0", "00"), ("1", "01"), ("10", "0a"), ("23", "17"), ("24", "1818"), ("25", "1819"), ("100", "1864"),
    ("1000", "1903e8"), ("1000000", "1a000f4240"), ("1000000000000", "1b000000e8d4a51000"),
    ("18446744073709551615", "1bffffffffffffffff"), ("18446744073709551616", "c249010000000000000000"),
    ("-18446744073709551616", "3bffffffffffffffff"), ("-18446744073709551617", "c349010000000000000000"),
    ("-1", "20"), ("-10", "29"), ("-100", "3863"), ("-1000", "3903e7"),
    ("0.0", "f90000"), ("-0.0", "f98000"), ("1.0", "f93c00"), ("1.1", "fb3ff199999999999a"), ("1.5", "f93e00"),
    ("65504.0", "f97bff"), ("100000.0", "fa47c35000"), ("3.4028234663852886e+38", "fa7f7fffff"),
    ("1.0e+300", "fb7e37e43c8800759c"), ("5.960464477539063e-8", "f90001"), ("0.00006103515625", "f90400"),
    ("-4.0", "f9c400"), ("-4.1", "fbc010666666666666"),
    ("Infinity", "f97c00"), ("NaN", "f97e00"), ("-Infinity", "f9fc00"),
    ("Infinity", "fa7f800000"), ("NaN", "fa7fc00000"), ("-Infinity", "faff800000"),
    ("Infinity", "fb7ff0000000000000"), ("NaN", "fb7ff8000000000000"), ("-Infinity", "fbfff0000000000000"),
    ("false", "f4"), ("true", "f5"), ("null", "f6"), ("undefined", "f7"),
    ("simple(16)", "f0"), ("simple(255)", "f8ff"),
    ("0(\"2013-03-21T20:04:00Z\")", "c074323031332d30332d32315432303a30343a30305a"),
    ("1(1363896240)", "c11a514b67b0"), ("1(1363896240.5)", "c1fb41d452d9ec200000"),
    ("23(h'01020304')", "d74401020304"), ("24(h'6449455446')", "d818456449455446"),
    ("32(\"http://www.example.com\")", "d82076687474703a2f2f7777772e6578616d706c652e636f6d"),
    ("h''", "40"), ("h'01020304'", "4401020304"),
    ("\"\"", "60"), ("\"a\"", "6161"), ("\"IETF\"", "6449455446"), ("\"\\\"\\\\\"", "62225c"),
    ("\"\\u00fc\"", "62c3bc"), ("\"\\u6c34\"", "63e6b0b4"), ("\"\\ud800\\udd51\"", "64f0908591"),
    ("[]", "80"), ("[1, 2, 3]", "83010203"), ("[1, [2, 3], [4, 5]]", "8301820203820405"),
    ("[" + (1...25).map(String.init).joined(separator: ", ") + "]",
     "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
    ("{}", "a0"), ("{1: 2, 3: 4}", "a201020304"), ("{\"a\": 1, \"b\": [2, 3]}", "a26161016162820203"),
    ("[\"a\", {\"b\": \"c\"}]", "826161a161626163"),
    ("{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}", "a56161614161626142616361436164614461656145"),
    ("(_ h'0102', h'030405')", "5f42010243030405ff"), ("(_ \"strea\", \"ming\")", "7f657374726561646d696e67ff"),
    ("[_ ]", "9fff"), ("[_ 1, [2, 3], [_ 4, 5]]", "9f018202039f0405ffff"), ("[_ 1, [2, 3], [4, 5]]", "9f01820203820405ff"),
    ("[1, [2, 3], [_ 4, 5]]", "83018202039f0405ff"), ("[1, [_ 2, 3], [4, 5]]", "83019f0203ff820405"),
    ("[_ " + (1...25).map(String.init).joined(separator: ", ") + "]",
     "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff"),
    ("{_ \"a\": 1, \"b\": [_ 2, 3]}", "bf61610161629f0203ffff"), ("[\"a\", {_ \"b\": \"c\"}]", "826161bf61626163ff"),
    ("{_ \"Fun\": true, \"Amt\": -2}", "bf6346756ef563416d7421ff"),
]

@Suite("CBOR RFC 8949 Appendix A")
struct CBORAppendixATests {
    @Test("every example decodes to its diagnostic", arguments: appendixA.indices)
    func decodesToDiagnostic(index: Int) throws {
        let (expected, hex) = appendixA[index]
        let options = CBORDecodingOptions(preserveIndefiniteLength: true)
        let item = try CBOR.decode(bytes(hex), options: options)
        switch item.untagged {
        case .float(let value, _) where !expected.contains("("):
            switch expected {
            case "NaN": #expect(value.isNaN)
            case "Infinity": #expect(value == .infinity)
            case "-Infinity": #expect(value == -.infinity)
            default:
                let reference = try #require(Double(expected))
                #expect(value.bitPattern == reference.bitPattern, "\(hex): \(value) ≠ \(expected)")
            }
        default:
            if case .tagged(let tag, _) = item, tag == 2 || tag == 3 {
                let big = try #require(item.bigInteger)
                #expect((big.negative ? "-" : "") + decimalString(big.magnitude) == expected)
            } else {
                #expect(item.diagnostic(asciiOnly: true) == expected, "\(hex)")
            }
        }
    }

    @Test("every example re-encodes to the same bytes from the faithful model", arguments: appendixA.indices)
    func roundTrips(index: Int) throws {
        let hex = appendixA[index].hex
        let item = try CBOR.decode(bytes(hex), options: CBORDecodingOptions(preserveIndefiniteLength: true))
        #expect(Hex.encode(try item.encoded()) == hex)
    }

    @Test("RFC 7049's simple(24) as f818 is not well-formed under RFC 8949")
    func twoByteSimpleBelow32() {
        #expect(throws: CodecError.self) { try CBOR.decode(bytes("f818")) }
    }
}

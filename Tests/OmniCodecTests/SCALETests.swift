import OmniCodec
import OmniTestSupport
import Testing

@Suite("SCALE primitives")
struct SCALEPrimitiveTests {
    static let compactCases: [(UInt128, String)] = [
        (0, "00"), (1, "04"), (63, "fc"),
        (64, "0101"), (16383, "fdff"),
        (16384, "02000100"), (1 << 30 - 1, "feffffff"),
        (1 << 30, "0300000040"), (UInt128(UInt32.max), "03ffffffff"), (1 << 32, "070000000001"),
        (UInt128(UInt64.max), "13ffffffffffffffff"), (UInt128.max, "33ffffffffffffffffffffffffffffffff"),
    ]

    @Test("compact integers: each of the four modes at its boundaries encodes and decodes")
    func compactModes() throws {
        for (value, hex) in Self.compactCases {
            var writer = SCALEWriter()
            writer.compact(value)
            #expect(Hex.encode(writer.bytes) == hex, "encode \(value)")
            var reader = SCALEReader(bytes(hex))
            #expect(try reader.compact() == value, "decode \(hex)")
            try reader.finish()
        }
    }

    @Test("non-canonical compacts are refused with the offset of their first byte")
    func compactCanonical() {
        // 1 in two-byte mode, 63 in four-byte mode, 2^14 - 1 in four-byte mode, 2^30 - 1 in big mode, a zero top byte.
        for hex in ["0500", "fe000000", "feff0000", "03ffffff3f", "070000004000"] {
            var reader = SCALEReader(bytes("aa" + hex), start: 1)
            do {
                let value = try reader.compact()
                Issue.record("\(hex) accepted as \(value)")
            } catch {
                #expect(error.offset == 1, "\(error)")
                #expect(error.message.contains("shortest form"), "\(error)")
            }
        }
        var tooWide = SCALEReader(bytes("0300000000ff"))
        #expect(throws: CodecError.self) { try tooWide.compact(.u32) }
        var truncated = SCALEReader(bytes("02ff"))
        #expect(throws: CodecError.self) { try truncated.compact() }
    }

    @Test("fixed integers are little-endian up to u128")
    func fixedIntegers() throws {
        var writer = SCALEWriter()
        writer.integer(0x0102, .u16)
        writer.integer(7, .u32)
        writer.integer(UInt128(UInt64.max) + 1, .u128)
        #expect(Hex.encode(writer.bytes) == "0201" + "07000000" + "0000000000000000" + "0100000000000000")
        var reader = SCALEReader(writer.bytes)
        #expect(try reader.integer(.u16) == 0x0102)
        #expect(try reader.integer(.u32) == 7)
        #expect(try reader.integer(.u128) == UInt128(UInt64.max) + 1)
    }

    @Test("bool is 00 or 01 only")
    func bool() throws {
        var reader = SCALEReader(bytes("000102"))
        #expect(try reader.bool() == false)
        #expect(try reader.bool() == true)
        #expect(throws: CodecError.self) { try reader.bool() }
    }

    @Test("str is strict UTF-8: an invalid byte fails at its own offset")
    func strictStrings() throws {
        var reader = SCALEReader(bytes("0c" + "616263"))
        #expect(try reader.string() == "abc")
        var bad = SCALEReader(bytes("0c" + "61ff63"))
        do {
            _ = try bad.string()
            Issue.record("invalid UTF-8 accepted")
        } catch {
            #expect(error.offset == 2, "\(error)")
            #expect(error.message.contains("UTF-8"))
        }
        // A "0x…" string stays text (scalecodec's Str would hex-decode it).
        var hexLike = SCALEReader(bytes("10" + Hex.encode(Array("0xab".utf8))))
        #expect(try hexLike.string() == "0xab")
    }

    @Test("a length past the bytes left is refused before any allocation")
    func hostileLengths() {
        var reader = SCALEReader(bytes("fe ff ff ff 00"))
        #expect(throws: CodecError.self) { try reader.bytes() }
    }
}

@Suite("SCALE described types")
struct SCALETypeTests {
    static let registry = SCALETypeRegistry([
        ("Item", .structure([SCALEField("label", .string), SCALEField("value", .option(.u64))])),
        ("Payload", .structure([SCALEField("items", .vector(.named("Item"))), SCALEField("flag", .option(.bool)),
                                SCALEField("tri", .optionBool), SCALEField("hash", .fixedBytes(4))])),
        ("Shape", .enumeration([SCALEVariant(0, "Nil"), SCALEVariant(1, "Text", .fields([SCALEField("text", .string)])),
                                SCALEVariant(2, "Pair", .tuple([.u8, .u16])), SCALEVariant(3, "One", .tuple([.u32])),
                                SCALEVariant(4, "Many", .tuple([.vector(.named("Shape"))]))])),
        ("Envelope", .versioned([SCALEVariant(0, "V1", .tuple([.named("Payload")])), SCALEVariant(1, "V2", .tuple([.string]))])),
        ("Answer", .result(ok: .u32, error: .string)),
        ("Size", .compact(.u64)),
    ])
    static let codec = SCALECodec(registry: registry)

    static let payload = SCALEValue.record([
        "items": .sequence([.record(["label": .string("a"), "value": .absent]),
                            .record(["label": .string("b"), "value": .some(.int(UInt64.max))])]),
        "flag": .some(.bool(false)), "tri": .some(.bool(false)), "hash": .bytes([1, 2, 3, 4]),
    ])

    @Test("a struct round-trips through bytes and JSON; Option<bool> is two bytes, OptionBool one")
    func structRoundTrip() throws {
        let encoded = try Self.codec.encode(Self.payload, as: .named("Payload"))
        #expect(Hex.encode(encoded) == "08" + "0461" + "00" + "0462" + "01ffffffffffffffff" + "0100" + "02" + "01020304")
        #expect(try Self.codec.decode(.named("Payload"), from: encoded) == Self.payload)
        let json = try Self.codec.json(Self.payload, as: .named("Payload"))
        #expect(json.serialized() == #"{"items":[{"label":"a","value":null},{"label":"b","value":"18446744073709551615"}],"flag":false,"tri":false,"hash":"0x01020304"}"#)
        #expect(try Self.codec.value(fromJSON: json, as: .named("Payload")) == Self.payload)
    }

    @Test("enums: unit variants are strings, others one-key objects; a versioned V1 stands for itself")
    func enumsAndEnvelopes() throws {
        let cases: [(SCALEValue, String, String)] = [
            (.unitVariant("Nil"), "00", #""Nil""#),
            (.variant("Text", .record(["text": .string("hi")])), "01086869", #"{"Text":{"text":"hi"}}"#),
            (.variant("Pair", .sequence([.int(1), .int(2)])), "02010200", #"{"Pair":[1,2]}"#),
            (.variant("One", .int(5)), "0305000000", #"{"One":5}"#),
        ]
        for (value, hex, json) in cases {
            let encoded = try Self.codec.encode(value, as: .named("Shape"))
            #expect(Hex.encode(encoded) == hex)
            #expect(try Self.codec.decode(.named("Shape"), from: encoded) == value)
            #expect(try Self.codec.json(value, as: .named("Shape")).serialized() == json)
            #expect(try Self.codec.value(fromJSON: try JSONValue.parse(json), as: .named("Shape")) == value)
        }
        let v1 = SCALEValue.variant("V1", Self.payload)
        let v1JSON = try Self.codec.json(v1, as: .named("Envelope"))
        #expect(v1JSON == (try Self.codec.json(Self.payload, as: .named("Payload"))))
        #expect(try Self.codec.value(fromJSON: v1JSON, as: .named("Envelope")) == v1)
        let v2 = SCALEValue.variant("V2", .string("later"))
        #expect(try Self.codec.json(v2, as: .named("Envelope")).serialized() == #"{"V2":"later"}"#)
        #expect(Hex.encode(try Self.codec.encode(v2, as: .named("Envelope"))) == "01" + "146c61746572")
    }

    @Test("Result is {\"Ok\": …} or {\"Err\": …}; compacts of u64 are decimal strings")
    func resultAndCompact() throws {
        #expect(Hex.encode(try Self.codec.encode(.ok(.int(7)), as: .named("Answer"))) == "0007000000")
        #expect(try Self.codec.json(.err(.string("no")), as: .named("Answer")).serialized() == #"{"Err":"no"}"#)
        #expect(try Self.codec.json(.int(70000), as: .named("Size")).serialized() == #""70000""#)
        #expect(try Self.codec.value(fromJSON: 70000, as: .named("Size")) == .int(70000))
    }

    @Test("decode errors name the byte offset and the field path")
    func errorPaths() throws {
        // items[1].label has a length past the end.
        let bad = bytes("08 0461 00 ff")
        do {
            _ = try Self.codec.decode(.named("Payload"), from: bad)
            Issue.record("accepted")
        } catch {
            #expect(error.path == "$.items[1].label", "\(error)")
            #expect(error.offset == 4, "\(error)")
        }
        do {
            _ = try Self.codec.decode(.named("Shape"), from: [9])
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("unknown variant index 9"), "\(error)")
        }
        // Trailing bytes after a whole value.
        #expect(throws: CodecError.self) { try Self.codec.decode(.named("Answer"), from: bytes("00070000000a")) }
    }

    @Test("JSON errors name the JSON path; unknown keys and out-of-range numbers are refused")
    func jsonErrors() throws {
        let cases: [(String, String)] = [
            (#"{"items":[{"label":1}],"tri":null,"hash":"0x00000000"}"#, "$.items[0].label"),
            (#"{"items":[],"tri":null,"hash":"0x00"}"#, "$.hash"),
            (#"{"items":[],"tri":null,"hash":"0x00000000","extra":1}"#, "$"),
            (#"{"items":[{"label":"x","value":"18446744073709551616"}],"tri":null,"hash":"0x00000000"}"#, "$.items[0].value"),
        ]
        for (json, path) in cases {
            do {
                _ = try Self.codec.value(fromJSON: try JSONValue.parse(json), as: .named("Payload"))
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.path == path, "\(json): \(error)")
            }
        }
    }

    @Test("nesting deeper than the limit is refused with a limit error, not a crash")
    func depthLimit() throws {
        let codec = SCALECodec(registry: Self.registry, limits: SCALELimits(maxDepth: 64))
        // Many(vec[Many(vec[…])]): each level is an enum and a vector.
        var deep: [UInt8] = []
        for _ in 0..<40 { deep += [4, 4] }
        deep += [0]
        do {
            _ = try codec.decode(.named("Shape"), from: deep)
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .limitExceeded, "\(error)")
        }
        var shallow: [UInt8] = []
        for _ in 0..<20 { shallow += [4, 4] }
        shallow += [0]
        _ = try codec.decode(.named("Shape"), from: shallow)
    }

    @Test("vector counts are bounded by the bytes left times the element's smallest size")
    func countBound() {
        // 3 elements of at least 2 bytes each (label length + option tag) cannot fit in 5 bytes.
        let input = bytes("0c 0000 0000 00")
        #expect(throws: CodecError.self) { try Self.codec.decode(.vector(.named("Item")), from: input) }
    }

    @Test("the registry reports dangling names and ambiguous types")
    func registryProblems() {
        let registry = SCALETypeRegistry([
            ("A", .structure([SCALEField("x", .named("Missing")), SCALEField("x", .u8)])),
            ("B", .option(.option(.u8))),
            ("C", .enumeration([SCALEVariant(0, "X"), SCALEVariant(0, "Y")])),
        ])
        let problems = registry.problems()
        #expect(problems.contains { $0.contains("unknown type Missing") })
        #expect(problems.contains { $0.contains("duplicate field") })
        #expect(problems.contains { $0.contains("Option<Option") })
        #expect(problems.contains { $0.contains("duplicate variant index") })
        #expect(Self.registry.problems().isEmpty)
    }
}

import OmniCodec
import Testing

/// The limits added after measuring each parser's peak memory on its worst inputs (docs/security.md, "Limits"):
/// element counts, not only byte sizes, bound what a value tree costs. Each limit lets its maximum through and
/// refuses one more, with the offset of the value that crossed it.
@Suite("Parser limits")
struct ParserLimitTests {
    private static func array(_ count: Int) -> String { "[" + Array(repeating: "0", count: count).joined(separator: ",") + "]" }

    @Test("JSON: values and object keys count against maxValues")
    func jsonValues() throws {
        let limits = JSONLimits(maxValues: 10)
        #expect(try JSONValue.parse(Self.array(9), limits: limits).arrayValue?.count == 9)
        let over = try #require(throws: CodecError.self) { try JSONValue.parse(Self.array(10), limits: limits) }
        #expect(over.kind == .limitExceeded && over.message.contains("more than 10 values") && over.offset == 19)
        // {"a":0,"b":0,…}: the object, then a key and a value per member.
        let members = (0..<5).map { "\"k\($0)\":0" }.joined(separator: ",")
        #expect(throws: CodecError.self) { try JSONValue.parse("{" + members + "}", limits: limits) }
        #expect(try JSONValue.parse("{" + members.dropLast(7) + "}", limits: limits).objectValue?.count == 4)
    }

    @Test("JSON: the defaults are 32 MiB and 1 Mi values")
    func jsonDefaults() {
        #expect(JSONLimits.default.maxBytes == 32 << 20)
        #expect(JSONLimits.default.maxValues == 1 << 20)
        #expect(throws: CodecError.self) { try JSONValue.parse(Self.array((1 << 20) + 1)) }
    }

    /// Objects are built by appending (duplicates are found with a set): order, duplicates and lookups are as before.
    @Test("JSON: large objects keep member order and still refuse duplicate keys")
    func jsonLargeObjects() throws {
        let keys = (0..<20_000).map { "m\($0)" }
        let text = "{" + keys.map { "\"\($0)\":\"\($0)\"" }.joined(separator: ",") + "}"
        let object = try #require(try JSONValue.parse(text).objectValue)
        #expect(object.keys == keys)
        #expect(object["m19999"] == .string("m19999"))
        let duplicate = try #require(throws: CodecError.self) { try JSONValue.parse(String(text.dropLast()) + ",\"m7\":0}") }
        #expect(duplicate.message.contains("duplicate key \"m7\""))
        // Parsing a String reads its UTF-8 in place and agrees with parsing the bytes.
        #expect(try JSONValue.parse(Array(text.utf8)) == .object(object))
    }

    @Test("TOML: values and key parts count against maxValues (64 Ki by default)")
    func tomlValues() throws {
        #expect(TOMLLimits.default.maxValues == 1 << 16)
        let limits = TOMLLimits(maxValues: 12)
        // `a = [ten values]`: one key part, the array and its elements.
        #expect(try TOMLTable.parse("a = " + Self.array(10), limits: limits)["a"]?.arrayValue?.count == 10)
        let over = try #require(throws: CodecError.self) { try TOMLTable.parse("a = " + Self.array(11), limits: limits) }
        #expect(over.kind == .limitExceeded && over.line == 1 && over.column == 26)
        func tables(_ count: Int) -> String { (0..<count).map { "[t\($0)]\n" }.joined() }
        #expect(throws: CodecError.self) { try TOMLTable.parse(tables(13), limits: limits) }
        #expect(try TOMLTable.parse(tables(12), limits: limits).entries.count == 12)
    }

    /// Every number's error used to be built (line and column scanned from the start) before it was known to be
    /// needed; errors are still exact.
    @Test("TOML: long arrays of numbers parse, and a bad number is still placed exactly")
    func tomlNumbers() throws {
        let numbers = Array(repeating: "1_000", count: 50_000).joined(separator: ", ")
        #expect(try TOMLTable.parse("a = [\(numbers)]")["a"]?.arrayValue?.count == 50_000)
        let bad = try #require(throws: CodecError.self) { try TOMLTable.parse("x = 1\ny = [1, 2, 3__0]") }
        #expect(bad.line == 2 && bad.column == 12 && bad.message.contains("invalid number '3__0'"))
    }

    @Test("SCALE: decoded values count against maxValues (1 Mi by default)")
    func scaleValues() throws {
        #expect(SCALELimits.default.maxValues == 1 << 20)
        let codec = SCALECodec(registry: SCALETypeRegistry(), limits: SCALELimits(maxValues: 11))
        var writer = SCALEWriter()
        writer.compact(10)
        writer.raw([UInt8](repeating: 7, count: 10))
        // The vector and its ten bytes.
        #expect(try codec.decode(.vector(.u8), from: writer.bytes) == .sequence(Array(repeating: .integer(7), count: 10)))
        var longer = SCALEWriter()
        longer.compact(11)
        longer.raw([UInt8](repeating: 7, count: 11))
        let over = try #require(throws: CodecError.self) { try codec.decode(.vector(.u8), from: longer.bytes) }
        #expect(over.kind == .limitExceeded && over.path == "$[10]")
    }

    /// Found measuring the limits: each body line was appended to a copy of the whole body (the open block was
    /// still referenced), so a block near the 4 MiB limit took over a minute.
    @Test("PEM: a block at the 4 MiB input limit reads back exactly")
    func pemLargeBlock() throws {
        let der = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let text = PEM.encode(label: "CERTIFICATE", der: der)
        #expect(text.utf8.count <= PEM.maximumInputByteCount)
        let blocks = try PEM.blocks(in: text)
        #expect(blocks.count == 1 && blocks[0].der == der)
        #expect(throws: CodecError.self) { try PEM.blocks(in: text + String(repeating: "x", count: PEM.maximumInputByteCount)) }
    }

    @Test("CBOR: the default input limit is 32 MiB")
    func cborDefaultInput() throws {
        #expect(CBORDecodingOptions.default.maxInputBytes == 32 << 20)
        let large = [UInt8](repeating: 0, count: (32 << 20) + 1)
        let error = try #require(throws: CodecError.self) { try CBOR.decodePrefix(large) }
        #expect(error.kind == .limitExceeded)
    }
}

import OmniCandid
import OmniCodec
import Testing

/// Limits of Candid text and `.did` files, added after measuring the parser's peak memory on its worst inputs
/// (docs/security.md, "Limits"): tokens, type definitions, and the binary decoder's per-type counts, so text can
/// build nothing a message could not carry.
@Suite struct TextLimitTests {
    private static func error(_ body: () throws -> Void) throws -> CandidError {
        try #require(throws: CandidError.self) { try body() }
    }

    @Test func tokensAreLimited() throws {
        #expect(CandidLimits.default.maxTextTokens == 1 << 19)
        let limits = CandidLimits(maxTextTokens: 12)
        // `(vec { 0; 0; 0 })` is 10 tokens and the end.
        #expect(try Candid.parseArguments("(vec { 0; 0; 0 })", limits: limits) == [.vec([.int(0), .int(0), .int(0)])])
        let over = try Self.error { _ = try Candid.parseArguments("(vec { 0; 0; 0; 0; })", limits: limits) }
        #expect(over.kind == .limitExceeded && over.message.contains("more than 12 tokens") && over.line == 1 && over.column == 21)
        #expect(try Self.error { _ = try CandidInterface.parse("type A = vec vec vec vec vec vec vec vec nat;", limits: limits) }.kind == .limitExceeded)
    }

    @Test func recordFieldsVariantCasesArgumentsAndMethodsAreLimitedAsInBinary() throws {
        let limits = CandidLimits(maxFieldsPerType: 3, maxArguments: 2)
        #expect(try Candid.parseArguments("(record { a = 1; b = 2; c = 3 })", limits: limits).count == 1)
        #expect(try Self.error { _ = try Candid.parseArguments("(record { a = 1; b = 2; c = 3; d = 4 })", limits: limits) }.kind == .limitExceeded)
        #expect(try Self.error { _ = try Candid.parseType("variant { a; b; c; d }", limits: limits) }.message.contains("more than 3 variant cases"))
        #expect(try Self.error { _ = try Candid.parseType("record { nat; nat; nat; nat }", limits: limits) }.message.contains("more than 3 record fields"))
        #expect(try Self.error { _ = try Candid.parseArgumentTypes("(nat, nat, nat, nat)", limits: limits) }.message.contains("more than 3 function arguments"))
        #expect(try Self.error { _ = try Candid.parseArguments("(1, 2, 3)", limits: limits) }.message.contains("more than 2 arguments"))
        let service = "service : { a : () -> (); b : () -> (); c : () -> (); d : () -> () }"
        #expect(try Self.error { _ = try CandidInterface.parse(service, limits: limits) }.message.contains("more than 3 service methods"))
    }

    /// Found by the candid-text fuzz target: printing annotates leaves (`opt (null : null)`), which used to count
    /// two more levels than the value has, so a value at the depth limit printed as text that did not parse back.
    @Test func valuesAtTheDepthLimitPrintAndParseBack() throws {
        let deepest = (0..<256).reduce(CandidValue.null) { value, _ in .opt(value) }
        for style in [CandidPrintStyle.pretty, .compact] {
            #expect(try Candid.parseArguments(Candid.print(arguments: [deepest], style: style)) == [deepest])
        }
        let tooDeep = "(" + String(repeating: "opt ", count: 257) + "null)"
        #expect(try Self.error { _ = try Candid.parseArguments(tooDeep) }.kind == .limitExceeded)
        let parentheses = String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300)
        #expect(try Self.error { _ = try Candid.parseValue(parentheses) }.message.contains("parentheses nested deeper than 256"))
        // An annotation's type counts on its own: a deep type on a shallow value, and the reverse, both parse.
        let deepType = String(repeating: "opt ", count: 200) + "nat"
        #expect(try Candid.parseValue("(null : \(deepType))") == .opt(nil))
    }

    /// Found by the candid-binary-typed fuzz target: a 128-element `List` (an option around a record per element,
    /// 256 levels) decoded, but the encoder also counted the empty option that ends it and refused the 257th
    /// level; text and JSON counted their leaves too. Every reader and the encoder now count what the decoder
    /// counts, so what decodes at the limit encodes, prints, parses and reads from JSON again, and one element
    /// more is refused by each of them.
    @Test func valuesAtTheDepthLimitDecodeEncodeAndReadBackInEveryForm() throws {
        let interface = try CandidInterface.parse("type List = opt record { head : nat; tail : List }; service : { f : (List) -> () }")
        let types = try interface.requireMethod("f").argumentTypes, environment = interface.environment
        func list(_ count: Int) -> CandidValue {
            (0..<count).reduce(CandidValue.opt(nil)) { tail, index in
                .opt(.record(["head": .nat(BigUInt(UInt64(index))), "tail": tail]))
            }
        }
        let decoder = try CandidDecoder(types: types, environment: environment)
        let deepest = [list(128)]
        let bytes = try Candid.encode(deepest, types: types, environment: environment)
        #expect(try decoder.decode(bytes) == deepest)
        for style in [CandidPrintStyle.pretty, .compact] {
            let text = Candid.print(arguments: deepest, style: style)
            #expect(try Candid.parseArguments(text, types: types, environment: environment) == deepest, "\(style)")
        }
        let json = Candid.json(arguments: deepest)
        #expect(try Candid.arguments(fromJSON: json, types: types, environment: environment) == deepest)

        let tooDeep = [list(129)]
        #expect(try Self.error { _ = try Candid.encode(tooDeep, types: types, environment: environment) }.kind == .limitExceeded)
        let wire = try Candid.encode(tooDeep, types: types, environment: environment, limits: CandidLimits(maxDepth: 300))
        #expect(try Self.error { _ = try decoder.decode(wire) }.kind == .limitExceeded)
        let text = Candid.print(arguments: tooDeep, style: .compact)
        #expect(try Self.error { _ = try Candid.parseArguments(text, types: types, environment: environment) }.kind == .limitExceeded)
        #expect(try Self.error { _ = try Candid.arguments(fromJSON: Candid.json(arguments: tooDeep), types: types, environment: environment) }
            .kind == .limitExceeded)
    }

    @Test func definitionsAreLimited() throws {
        #expect(CandidLimits.default.maxDefinitions == 10_000)
        let limits = CandidLimits(maxDefinitions: 3)
        #expect(try CandidInterface.parse("type A = nat; type B = opt A; type C = vec B;", limits: limits).environment.names == ["A", "B", "C"])
        let over = try Self.error { _ = try CandidInterface.parse("type A = nat; type B = opt A; type C = vec B;\ntype D = A;", limits: limits) }
        #expect(over.kind == .limitExceeded && over.line == 2 && over.message.contains("more than 3 type definitions"))
    }

    /// Methods merged by `import service` are checked for duplicates with a set now; the answer is unchanged.
    @Test func mergedServicesStillRefuseDuplicateMethods() throws {
        let resolver = CandidInterface.ImportResolver { path, _ in (path, Array("service : { get : () -> (nat) query }".utf8)) }
        let merged = try CandidInterface.parse("import service \"a.did\"; service : { put : (nat) -> () }", resolver: resolver)
        #expect(merged.service?.methods.map(\.name) == ["get", "put"])
        let duplicate = try Self.error { _ = try CandidInterface.parse("import service \"a.did\"; service : { get : () -> () }", resolver: resolver) }
        #expect(duplicate.kind == .duplicateLabel && duplicate.message.contains("also defined by an imported service"))
    }

    /// Large records are matched to their types through a table of field positions; values, defaults for missing
    /// optional fields and errors for missing required ones are as before.
    @Test func largeRecordsTypeFieldByField() throws {
        let fields = (0..<100).map { CandidField("f\($0)", $0 == 99 ? .opt(.nat) : .nat) }
        let text = "(record {" + (0..<99).reversed().map { "f\($0) = \($0)" }.joined(separator: "; ") + "})"
        let typed = try Candid.parseArguments(text, types: [.record(fields)])
        #expect(typed[0][field: "f42"] == .nat(42))
        #expect(typed[0][field: "f99"] == .opt(nil))
        let missing = try Self.error { _ = try Candid.parseArguments("(record {" + (1..<99).map { "f\($0) = 1" }.joined(separator: "; ") + "})", types: [.record(fields)]) }
        #expect(missing.message.contains("record field \"f0\" is missing"))
        let value = CandidValue.record(fields.enumerated().map { CandidFieldValue($0.element.label, $0.offset == 99 ? .opt(.nat(7)) : .nat(7)) }
            .sorted { $0.label.id < $1.label.id })
        #expect(try Candid.coerce(value, to: .record(fields))[field: "f99"] == .opt(.nat(7)))
    }
}

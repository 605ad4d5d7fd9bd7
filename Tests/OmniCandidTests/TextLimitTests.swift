import OmniCandid
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
        let deepest = (0..<255).reduce(CandidValue.null) { value, _ in .opt(value) }
        for style in [CandidPrintStyle.pretty, .compact] {
            #expect(try Candid.parseArguments(Candid.print(arguments: [deepest], style: style)) == [deepest])
        }
        let tooDeep = "(" + String(repeating: "opt ", count: 256) + "null)"
        #expect(try Self.error { _ = try Candid.parseArguments(tooDeep) }.kind == .limitExceeded)
        let parentheses = String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300)
        #expect(try Self.error { _ = try Candid.parseValue(parentheses) }.message.contains("parentheses nested deeper than 256"))
        // An annotation's type counts on its own: a deep type on a shallow value, and the reverse, both parse.
        let deepType = String(repeating: "opt ", count: 200) + "nat"
        #expect(try Candid.parseValue("(null : \(deepType))") == .opt(nil))
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

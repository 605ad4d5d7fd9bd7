import OmniCandid
import OmniCodec
import Testing

/// `Candid.subtypeMismatch` / `CandidInterface.upgradeMismatch`: the first incompatible spot, in agreement with
/// `isSubtype`; and the decoder's vector-of-records path keeping the generic path's behaviour.
@Suite struct SubtypeExplanationTests {
    func mismatch(_ sub: String, _ sup: String, definitions: String = "") throws -> CandidSubtypeMismatch? {
        let environment = try CandidInterface.parse(definitions).environment
        return try Candid.subtypeMismatch(try Candid.parseType(sub), in: environment, of: try Candid.parseType(sup), in: environment)
    }

    @Test(arguments: [
        ("nat", "int", nil),
        ("int", "nat", "int is not a subtype of nat"),
        ("record { a : nat }", "record { a : nat; b : nat }", "record field \"b\": the field is missing and its type nat is not optional"),
        ("record { a : nat }", "record { a : nat; b : opt nat }", nil),
        ("variant { a; c }", "variant { a; b }", "variant case \"c\": the case is not in the supertype"),
        ("vec record { x : text }", "vec record { x : nat }", "vec element . record field \"x\": text is not a subtype of nat"),
        ("func (nat) -> ()", "func (int) -> ()", "argument 1: int is not a subtype of nat"),
        ("func () -> ()", "func () -> (nat)", "result 1: the result of type nat is missing"),
        ("func (nat, text) -> ()", "func (nat) -> ()", "argument 2: an extra argument of type text that is not optional"),
        ("func () -> () query", "func () -> ()", "the annotations differ: a query instead of an update"),
        ("service { a : () -> () }", "service { a : () -> (); b : () -> () }", "method \"b\": the method is missing"),
    ] as [(String, String, String?)])
    func explainsTheFirstIncompatibility(sub: String, sup: String, expected: String?) throws {
        let found = try mismatch(sub, sup)
        #expect(found?.description == expected)
        let environment = CandidTypeEnvironment()
        let holds = try Candid.isSubtype(try Candid.parseType(sub), in: environment, of: try Candid.parseType(sup), in: environment)
        #expect(holds == (found == nil), "the explanation agrees with isSubtype")
    }

    @Test func recursiveTypesTerminate() throws {
        let definitions = """
            type Stream = record { head : nat; next : func () -> (Stream) };
            type IntStream = record { head : int; next : func () -> (IntStream) };
            type Loop = opt Loop2; type Loop2 = record { Loop; text };
            type Other = opt Other2; type Other2 = record { Other; nat };
            """
        #expect(try mismatch("Stream", "IntStream", definitions: definitions) == nil)
        #expect(try mismatch("IntStream", "Stream", definitions: definitions)?.description == "record field \"head\": int is not a subtype of nat")
        // Options accept anything, so even these differing recursive records are subtypes.
        #expect(try mismatch("Loop", "Other", definitions: definitions) == nil)
        #expect(try mismatch("Loop2", "Other2", definitions: definitions)?.description == "record field 1: text is not a subtype of nat")
    }

    @Test func upgradesNameTheBrokenMethod() throws {
        let old = try CandidInterface.parse("type T = record { x : nat }; service : { get : () -> (T); put : (T) -> () }")
        let wider = try CandidInterface.parse("type T = record { x : nat; y : opt nat }; service : { get : () -> (T); put : (T) -> (); more : () -> () }")
        #expect(try wider.upgradeMismatch(from: old) == nil)
        #expect(try wider.upgradeMismatch(from: old, strict: true)?.description
                == "method \"more\": the method is missing in the old version")
        #expect(try old.upgradeMismatch(from: old, strict: true) == nil)
        let narrower = try CandidInterface.parse("type T = record { x : nat; y : nat }; service : { get : () -> (T); put : (T) -> () }")
        let found = try #require(try narrower.upgradeMismatch(from: old))
        #expect(found.path == ["method \"put\"", "argument 1", "record field \"y\""])
        #expect(try narrower.isCompatibleUpgrade(of: old) == false)
    }

    /// Vectors of records take a dedicated decoding loop; extra, missing and mismatching fields behave as in a
    /// single record, and errors keep the element's path.
    @Test func vectorsOfRecordsDecodeLikeSingleRecords() throws {
        let wire: [CandidType] = [.vec(try Candid.parseType("record { a : nat; b : text; c : int }"))]
        let values: [CandidValue] = [.vec((0..<5).map { index in
            .record(["a": .nat(BigUInt(UInt64(index))), "b": .text("t\(index)"), "c": .int(BigInt(Int64(-index)))])
        })]
        let message = try Candid.encode(values, types: wire)
        let narrower = try Candid.decode(message, types: [.vec(try Candid.parseType("record { c : int; d : opt nat }"))])
        #expect(Candid.print(arguments: narrower, style: .compact).hasPrefix("(vec { record { c = 0 : int; d = null }; record { c = -1 : int; d = null };"))
        let error = try #require(throws: CandidError.self) {
            try Candid.decode(message, types: [.vec(try Candid.parseType("record { a : nat; b : nat }"))])
        }
        #expect(error.pathDescription == "argument 1 . vec[0] . record field \"b\"" && error.kind == .typeMismatch)
        let missing = try #require(throws: CandidError.self) {
            try Candid.decode(message, types: [.vec(try Candid.parseType("record { z : nat }"))])
        }
        #expect(missing.message.contains("record field \"z\"") && missing.pathDescription == "argument 1 . vec[0]")
        // Inside an option the same failure becomes null, as the spec's coercion rules say.
        let optional = try Candid.decode(message, types: [.opt(.vec(try Candid.parseType("record { z : nat }")))])
        #expect(optional == [.opt(nil)])
        var small = CandidLimits.default
        small.workBudget = 12
        #expect(throws: CandidError.self) { try Candid.decode(message, types: wire, limits: small) }
    }
}

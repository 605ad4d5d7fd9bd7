import OmniCandid
import OmniCodec
import Testing

/// The JSON mapping in both directions, and the subtype relation used by `check` and `subtype`.
@Suite struct JSONMappingTests {
    static let type = try! Candid.parseType("""
        record {
          owner : principal; amount : nat; delta : int; small : nat8; signed : int32; big : nat64; negative : int64;
          ratio : float64; note : text; data : blob; tags : vec text; maybe : opt nat16; nothing : opt nat16;
          pair : record { nat8; text }; result : variant { ok : nat; err : text }; flag : variant { on; off };
          empty_record : record {}; callback : func () -> (); 5 : bool
        }
        """)

    @Test func valuesMapToDocumentedJSON() throws {
        let value = try Candid.parseValue("""
            record {
              owner = principal "aaaaa-aa"; amount = 340282366920938463463374607431768211456; delta = -5; small = 255;
              signed = -7; big = 18446744073709551615; negative = -9223372036854775808; ratio = 0.5; note = "hé";
              data = blob "\\de\\ad\\be\\ef"; tags = vec { "a"; "b" }; maybe = opt 7; nothing = null;
              pair = record { 1; "x" }; result = variant { err = "no" }; flag = variant { off }; empty_record = record {};
              callback = func "aaaaa-aa".notify; 5 = true
            }
            """, type: Self.type)
        let json = value.json
        #expect(json["owner"] == .string("aaaaa-aa"))
        #expect(json["amount"] == .string("340282366920938463463374607431768211456"))
        #expect(json["delta"] == .string("-5"))
        #expect(json["small"] == .number("255"))
        #expect(json["signed"] == .number("-7"))
        #expect(json["big"] == .string("18446744073709551615"))
        #expect(json["negative"] == .string("-9223372036854775808"))
        #expect(json["ratio"] == .number("0.5"))
        #expect(json["note"] == .string("hé"))
        #expect(json["data"] == .string("deadbeef"))
        #expect(json["tags"] == .array(["a", "b"]))
        #expect(json["maybe"] == .number("7"))
        #expect(json["nothing"] == .null)
        #expect(json["pair"] == .array([.number("1"), "x"]))
        #expect(json["result"] == .object(["err": "no"]))
        #expect(json["flag"] == .object(["off": .null]))
        #expect(json["empty_record"] == .object(JSONObject()))
        #expect(json["callback"] == .object(["service": "aaaaa-aa", "method": "notify"]))
        #expect(json["_5_"] == .bool(true))
        // And back, at the type.
        #expect(try Candid.value(fromJSON: json, type: Self.type) == value)
        // Through serialized JSON text as a script would.
        let text = json.serialized(pretty: false)
        #expect(try Candid.value(fromJSON: try JSONValue.parse(text), type: Self.type) == value)
    }

    @Test func jsonInputIsLenientWhereUnambiguous() throws {
        let type = try Candid.parseType("record { n : nat; b : nat8; bytes : blob; v : variant { on; off }; t : record { int; opt text } }")
        let json = try JSONValue.parse(#"{"n": 5, "b": "7", "bytes": [1, 2], "v": "on", "t": [-3]}"#)
        let value = try Candid.value(fromJSON: json, type: type)
        #expect(value == .record(["n": .nat(5), "b": .nat8(7), "bytes": .blob([1, 2]), "v": .variant("on"),
                                   "t": .tuple([.int(-3), .opt(nil)])]))
    }

    @Test func jsonErrorsNameThePath() throws {
        let type = try Candid.parseType("record { owner : principal; items : vec record { amount : nat8 } }")
        func error(_ text: String) throws -> CandidError {
            try #require(throws: CandidError.self) { try Candid.arguments(fromJSON: try JSONValue.parse(text), types: [type]) }
        }
        let range = try error(#"[{"owner": "aaaaa-aa", "items": [{"amount": 1}, {"amount": 300}]}]"#)
        #expect(range.pathDescription == "argument 1 . record field \"items\" . vec[1] . record field \"amount\"")
        #expect(range.message.contains("out of range"))
        let typo = try error(#"[{"owner": "aaaaa-aa", "items": [], "itmes": []}]"#)
        #expect(typo.message.contains("unknown record field \"itmes\""))
        let missing = try error(#"[{"items": []}]"#)
        #expect(missing.message.contains("\"owner\" is missing"))
    }

    @Test func argumentListsRoundTripOnRandomValues() throws {
        // Types without nested options (JSON cannot tell `opt null` from `null`).
        let types = try Candid.parseArgumentTypes("""
            (record { a : nat; b : int; c : vec opt text; d : variant { x; y : record { nat8; int16 }; z : blob } },
             opt principal, vec record { float32; float64 }, nat64, int64, nat32, int32, nat16, int8, null,
             func (nat) -> (text) query, service { m : () -> () }, record {}, record { 7 : text; name : bool })
            """).map(\.type)
        let seed = UInt64.random(in: 0...UInt64.max)
        for offset in 0..<100 {
            let values = try Candid.randomArguments(types: types, seed: seed &+ UInt64(offset))
            let json = Candid.json(arguments: values)
            let back = try Candid.arguments(fromJSON: try JSONValue.parse(json.serialized(pretty: true)), types: types)
            #expect(back == values, "seed \(seed &+ UInt64(offset))")
        }
    }
}

@Suite struct SubtypeTests {
    func isSubtype(_ sub: String, _ sup: String, definitions: String = "") throws -> Bool {
        let environment = try CandidInterface.parse(definitions).environment
        return try Candid.isSubtype(try Candid.parseType(sub), in: environment, of: try Candid.parseType(sup), in: environment)
    }

    @Test func primitiveAndSpecialRules() throws {
        #expect(try isSubtype("nat", "int"))
        #expect(try !isSubtype("int", "nat"))
        #expect(try !isSubtype("nat8", "nat"))
        #expect(try isSubtype("empty", "record { a : nat }"))
        #expect(try isSubtype("vec text", "reserved"))
        #expect(try isSubtype("bool", "opt nat"))  // anything is a subtype of an option
        #expect(try isSubtype("service { m : () -> () }", "principal"))
        #expect(try !isSubtype("principal", "service {}"))
        #expect(try !isSubtype("record {}", "empty"))
    }

    @Test func recordsVariantsFunctionsServices() throws {
        #expect(try isSubtype("record { a : nat; b : text }", "record { a : int }"))
        #expect(try isSubtype("record {}", "record { a : opt nat; b : null; c : reserved }"))
        #expect(try !isSubtype("record {}", "record { a : nat }"))
        #expect(try isSubtype("variant { a }", "variant { a; b : nat }"))
        #expect(try !isSubtype("variant { a; c }", "variant { a; b : nat }"))
        #expect(try isSubtype("func (int) -> (nat, text)", "func (nat, opt bool) -> (int)"))
        #expect(try !isSubtype("func (nat) -> ()", "func (int) -> ()"))
        #expect(try !isSubtype("func () -> () query", "func () -> ()"))
        #expect(try isSubtype("service { a : () -> (); b : () -> () }", "service { a : () -> () }"))
        #expect(try !isSubtype("service { a : () -> () }", "service { a : () -> (); b : () -> () }"))
    }

    @Test func recursiveTypesAreComparedCoinductively() throws {
        let definitions = """
            type List = opt record { head : nat; tail : List };
            type IntList = opt record { head : int; tail : IntList };
            type Stream = record { head : nat; next : func () -> (Stream) };
            type IntStream = record { head : int; next : func () -> (IntStream) };
            type Tree = variant { leaf : nat; node : record { Tree; Tree } };
            type WideTree = variant { leaf : int; node : record { WideTree; WideTree }; empty };
            """
        #expect(try isSubtype("List", "IntList", definitions: definitions))
        #expect(try isSubtype("Stream", "IntStream", definitions: definitions))
        #expect(try !isSubtype("IntStream", "Stream", definitions: definitions))
        #expect(try isSubtype("Tree", "WideTree", definitions: definitions))
        #expect(try !isSubtype("WideTree", "Tree", definitions: definitions))
    }
}

import Foundation
import OmniCandid
import OmniCodec
import OmniTestSupport
import Testing

/// Candid text: parsing, didc-style printing (expected strings follow didc's own value tests), round trips, errors.
@Suite struct TextTests {
    func printed(_ text: String, types: String? = nil, style: CandidPrintStyle = .pretty) throws -> String {
        let types = try types.map { try Candid.parseArgumentTypes($0).map(\.type) }
        return Candid.print(arguments: try Candid.parseArguments(text, types: types), style: style)
    }

    @Test func typedLiteralsPrintWithAnnotations() throws {
        #expect(try printed("(true, null, 4_2, \"哈哈\", \"string with whitespace\", 0x2a, -42, false)",
                            types: "(bool, null, nat, text, text, int, int, bool)") == """
            (
              true,
              null : null,
              42 : nat,
              "哈哈",
              "string with whitespace",
              42 : int,
              -42 : int,
              false,
            )
            """)
        #expect(try printed("(vec{1;2;3;4})", types: "(vec nat)") == "(vec { 1 : nat; 2 : nat; 3 : nat; 4 : nat })")
        #expect(try printed("(opt record {}, record { 1=42;44=\"test\"; 2=false }, variant { 5=null })",
                            types: "(opt record {}, record { 1 : nat; 44 : text; 2 : bool }, variant { 5 : null })")
                == "(opt record {}, record { 1 = 42 : nat; 2 = false; 44 = \"test\" }, variant { 5 })")
    }

    @Test func nestedRecordBreaksLikeDidc() throws {
        let text = "(record {label=42; 0x2b=record {test=\"test\"; \"opt\"=\"hello\"}; long_label=opt null})"
        let type = "(record {label: nat; 0x2b:record { test:text; \"opt\":text }; long_label: opt null })"
        #expect(try printed(text, types: type) == """
            (
              record {
                43 = record { "opt" = "hello"; test = "test" };
                long_label = opt (null : null);
                label = 42 : nat;
              },
            )
            """)
        #expect(try printed(text, types: "(record { label : nat })") == "(record { label = 42 : nat })")
        #expect(try printed(text, types: type, style: .compact)
                == "(record { 43 = record { \"opt\" = \"hello\"; test = \"test\" }; long_label = opt (null : null); label = 42 : nat })")
    }

    @Test func untypedLiteralsAndShorthands() throws {
        #expect(try printed(" (true, null, 42, 42., +42.42, -42e5, 42.42e-5)") == """
            (
              true,
              null : null,
              42 : int,
              42.0 : float64,
              42.42 : float64,
              -4200000.0 : float64,
              0.0004242 : float64,
            )
            """)
        #expect(try printed("(record { 42; record {}; true; record { 42; 0x2a=42; 42; 42 }; opt 42 })") == """
            (
              record {
                42 : int;
                record {};
                true;
                record { 0 = 42 : int; 42 = 42 : int; 43 = 42 : int; 44 = 42 : int };
                opt (42 : int);
              },
            )
            """)
        #expect(try printed("(variant { 0x2a }, variant { label })") == "(variant { 42 }, variant { label })")
        #expect(try printed("(1 : nat, (123 : int), 456 : int32, 789. : float32, 1011.0 : float64)", style: .compact)
                == "(1 : nat, 123 : int, 456 : int32, 789.0 : float32, 1011.0 : float64)")
        #expect(try printed("(1_000_000 : nat64, -20_000 : int16, 1000000 : nat)") == "(1_000_000 : nat64, -20_000 : int16, 1000000 : nat)")
    }

    @Test func blobsTextAndEscapes() throws {
        #expect(try printed("(blob \"DIDL\\00\\01\\7d\\80\\00\")") == "(blob \"\\44\\49\\44\\4c\\00\\01\\7d\\80\\00\")")
        #expect(try printed("(blob \"hello world\")") == "(blob \"hello world\")")
        #expect(try printed("(blob \"\\de\\ad\")") == "(blob \"\\de\\ad\")")
        let strings = try Candid.parseArguments("(\"\", \"\\u{10ffff}\\n\", \"\\0a\\0dd\", \"\\u{26_03}\\t\\\"\\'\\\\\")")
        #expect(strings == [.text(""), .text("\u{10ffff}\n"), .text("\n\rd"), .text("☃\t\"'\\")])
        #expect(Candid.print(arguments: [strings[3]]) == "(\"☃\\t\\\"'\\\\\")")
        // vec nat8 written element by element is the same value as the blob.
        #expect(try Candid.parseArguments("(vec { 222; 173 })", types: [.blob]) == [.blob([0xDE, 0xAD])])
        #expect(try Candid.parseArguments("(vec { 222; 173 })", types: [.blob]) == [.vec([.nat8(0xDE), .nat8(0xAD)])])
    }

    @Test func referencesAndSpecialFloats() throws {
        #expect(try printed("(principal \"aaaaa-aa\", service \"w7x7r-cok77-xa\", func \"w7x7r-cok77-xa\".\"a b\", func \"aaaaa-aa\".m)")
                == "(\n  principal \"aaaaa-aa\",\n  service \"w7x7r-cok77-xa\",\n  func \"w7x7r-cok77-xa\".\"a b\",\n  func \"aaaaa-aa\".m,\n)")
        let floats = try Candid.parseArguments("(nan : float64, -inf : float64, 1e300 : float64, 5e-324, 0.1 : float32)")
        let compact = Candid.print(arguments: floats, style: .compact)
        #expect(compact.hasPrefix("(nan : float64, -inf : float64, 1" + String(repeating: "0", count: 300) + ".0 : float64, 0.000"))
        #expect(compact.hasSuffix("0005 : float64, 0.1 : float32)"))
        #expect(try Candid.parseArguments(Candid.print(arguments: floats)) == floats)
        #expect(floats[4] == .float32(0.1))
    }

    /// Printing then parsing (with the same types) gives the same values, in both layouts.
    @Test func printParseRoundTripOnRandomValues() throws {
        let types = try Candid.parseArgumentTypes("""
            (record { a : nat; b : int; c : vec opt text; d : variant { x; y : record { nat8; int16 }; z : blob } },
             opt principal, vec record { float32; float64 }, nat64, int64, nat32, int32, nat16, int8, reserved, null,
             func (nat) -> (text) query, service { m : () -> () }, record {}, opt opt bool)
            """).map(\.type)
        let seed = UInt64.random(in: 0...UInt64.max)
        for offset in 0..<150 {
            let values = try Candid.randomArguments(types: types, seed: seed &+ UInt64(offset))
            for style in [CandidPrintStyle.pretty, .compact] {
                let text = Candid.print(arguments: values, style: style)
                let parsed = try Candid.parseArguments(text, types: types)
                #expect(parsed == values, "seed \(seed &+ UInt64(offset)): \(text)")
            }
        }
    }

    @Test func syntaxErrorsHaveLineAndColumn() throws {
        func error(_ text: String, types: [CandidType]? = nil) throws -> CandidError {
            try #require(throws: CandidError.self) { try Candid.parseArguments(text, types: types) }
        }
        let unknownEscape = try error("(\"\\q\")")
        #expect(unknownEscape.kind == .syntax && unknownEscape.line == 1 && unknownEscape.column == 3)
        #expect(unknownEscape.message.contains("unknown escape character q"))
        let surrogate = try error("(\"\\u{d800}\")")
        #expect(surrogate.message.contains("out of range d800"))
        let notUnicode = try error("(\n  \"DIDL\\00\\01\\7d\\80\\00\")")
        #expect(notUnicode.line == 2 && notUnicode.column == 3 && notUnicode.message.contains("not valid Unicode"))
        let unclosed = try error("(record { a = 1;\n  b = 2 ")
        #expect(unclosed.kind == .syntax && unclosed.line == 2)
        #expect(unclosed.description.hasPrefix("Candid syntax error (line 2, column"))
        let badAnnotation = try error("(vec {1;2;3;-4;5;6;7} : vec nat)")
        #expect(badAnnotation.kind == .typeMismatch && badAnnotation.pathDescription == "argument 1 . vec[3]")
        #expect(try error("(42)", types: [.opt(.nat)]).kind == .typeMismatch)
        #expect(try error("(300)", types: [.nat8]).message.contains("out of range"))
        #expect(try error("(variant {})").message.contains("exactly one"))
        #expect(try error("(record { a = 1; a = 2 })").message.contains("duplicate field"))
        #expect(try error("(principal \"aaaab-aa\")").message.contains("checksum"))
        #expect(try error("(principal \"aaaaa-ab\")").message.contains("canonical"))
        #expect(try error("(1 : foo)").kind == .invalidType)
        #expect(try error("(/* nested /* comment */ 1)").kind == .syntax)
        #expect(try Candid.parseArguments("(/* nested /* comment */ */ 1 // tail\n)") == [.int(1)])
    }

    @Test func mutatedTextNeverCrashes() throws {
        var random = SystemRandomNumberGenerator()
        let seeds = [
            "(record { a = 0x2a; \"b c\" = vec { opt -1.5e3; null }; 5 = variant { x = blob \"\\00\\ff\" } }, principal \"aaaaa-aa\", func \"aaaaa-aa\".m)",
            "type T = record { a : opt T; b : vec variant { x; y : nat } }; service : (nat) -> { m : (T) -> (text) query; n : func () -> () }",
            "(\"\\u{1F600}\\t\" : text, 1_000 : nat64, -inf : float64, 0x1.8p3 : float32, record { 1; 2 })",
        ]
        let alphabet = Array("(){}[];:,.=-+0x9aZ_\"\\ /*opt vec record variant blob principal func service nat".utf8)
        for _ in 0..<3_000 {
            var text = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<text.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: text.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &random)], at: index)
                case 1: text.remove(at: index)
                default: text[index] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let mutated = String(decoding: text, as: UTF8.self)
            _ = try? Candid.parseArguments(mutated)
            _ = try? Candid.parseArguments(mutated, types: [.record([CandidField("a", .nat)]), .principal])
            _ = try? CandidInterface.parse(mutated)
            _ = try? Candid.parseType(mutated)
            _ = try? CandidTestFile.parse(mutated)
        }
    }

    @Test func deeplyNestedTextIsRefused() throws {
        let text = "(" + String(repeating: "opt ", count: 5_000) + "null)"
        let error = try #require(throws: CandidError.self) { try Candid.parseArguments(text) }
        #expect(error.kind == .limitExceeded)
    }

    @Test func principalTextForms() throws {
        #expect(Principal.managementCanister.text == "aaaaa-aa")
        #expect(Principal.anonymous.text == "2vxsx-fae")
        #expect(try Principal(text: "2chl6-4hpzw-vqaaa-aaaaa-c").bytes == [0xEF, 0xCD, 0xAB, 0, 0, 0, 0, 0, 1])
        // Letter case does not matter (../shared/vectors/ic/principals.json "case_insensitive"); the dashes do.
        #expect(try Principal(text: "W7X7R-COK77-XA") == (try Principal(text: "w7x7r-cok77-xa")))
        #expect(try Principal(text: "W7X7R-COK77-XA").text == "w7x7r-cok77-xa")
        #expect(throws: CandidError.self) { try Principal(text: "w7x7rcok77xa") }
        #expect(throws: CandidError.self) { try Principal(text: "W7X7RCOK77XA") }
        #expect(throws: CandidError.self) { try Principal(bytes: [UInt8](repeating: 1, count: 30)) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let principal = try Principal(bytes: (0..<Int.random(in: 0...29, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            #expect(try Principal(text: principal.text) == principal)
        }
    }

    @Test("principals.json: every case_insensitive text parses to its bytes, in Candid text too", .vectors("ic/principals.json"))
    func principalTextIgnoresCase() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Vectors.url("ic/principals.json"))) as? [String: Any])
        let entries = try #require(document["case_insensitive"] as? [[String: Any]])
        #expect(entries.count == 2)
        for entry in entries {
            let text = try #require(entry["text"] as? String)
            let bytes = try Hex.decode(try #require(entry["hex"] as? String))
            let principal = try Principal(text: text)
            #expect(principal.bytes == bytes, "\(text)")
            #expect(try Candid.parseArguments("(principal \"\(text)\")") == [.principal(principal)], "\(text)")
        }
    }

    @Test func typesPrintLikeDidc() throws {
        let text = "record { owner : principal; subaccount : opt blob; kind : variant { a; b : nat }; pair : record { nat; text } }"
        #expect(Candid.print(try Candid.parseType(text)) == """
            record {
              owner : principal;
              subaccount : opt blob;
              kind : variant { a; b : nat };
              pair : record { nat; text };
            }
            """)
        #expect(Candid.print(try Candid.parseType("func (to : principal, nat) -> (opt text) composite_query"))
                == "func (to : principal, nat) -> (opt text) composite_query")
        #expect(Candid.print(try Candid.parseType("service { \"quoted name\" : () -> () oneway; get : (nat) -> (text) query }"))
                == "service { \"quoted name\" : () -> () oneway; get : (nat) -> (text) query }")
        #expect(Candid.hash("foo") == 5_097_222 && Candid.hash("") == 0 && Candid.hash("☃") == 11_272_781)
    }
}

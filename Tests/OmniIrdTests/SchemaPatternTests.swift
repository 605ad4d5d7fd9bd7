import Foundation
import OmniCodec
import OmniTestSupport
import Testing
@testable import OmniIrd

@Suite struct SchemaPatternTests {
    func found(_ pattern: String, _ text: String) throws -> Bool? {
        var budget = 1_000_000
        return try SchemaPattern(pattern).search(text, budget: &budget)
    }

    func refusal(_ pattern: String, limits: SchemaPattern.Limits = .init()) -> SchemaPattern.Refusal? {
        do throws(SchemaPattern.Refusal) {
            _ = try SchemaPattern(pattern, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// ECMA-262 with the u flag, searched for anywhere in the text (JSON Schema's `pattern`).
    @Test func matchesAsECMAScriptDoes() throws {
        let cases: [(String, String, Bool)] = [
            ("^[a-z0-9-]+$", "abc-1", true), ("^[a-z0-9.-]+\\.[a-z]{2,}$", "mx.example.ro", true), ("^[0-9]{6}$", "12345", false),
            ("^-?[0-9]+(\\.[0-9]+)?$", "-12.50", true), ("^-?[0-9]+(\\.[0-9]+)?$", "12.", false),
            ("b", "abc", true), ("^b", "abc", false), ("c$", "abc", true),
            ("c$", "abc\n", false),                                   // no multiline: $ is the end of the text only
            (".", "\n", false), (".", "\u{2028}", false), (".", "\r", false), ("^.$", "é", true),
            ("^.$", "😀", true), ("^\\u{1F600}$", "😀", true), ("^\\uD83D\\uDE00$", "😀", true),  // code points
            ("\\bfoo\\b", "a foo b", true), ("\\bfoo\\b", "afoo", false), ("\\Bfoo", "afoo", true), ("^\\b$", "", false),
            ("^\\d{3}$", "123", true), ("^\\d{3}$", "١٢٣", false),    // \d is ASCII
            ("^\\w+$", "snake_case9", true), ("^\\w+$", "héllo", false),
            ("^\\s$", "\u{00A0}", true), ("^\\s$", "\u{FEFF}", true), ("^\\s$", "\u{3000}", true), ("^\\S$", " ", false),
            ("^[^abc]$", "d", true), ("^[^abc]$", "a", false), ("^[^abc]$", "\n", true),
            ("[]", "", false), ("[]", "abc", false), ("[^]", "\n", true),
            ("^(ab|cd)+$", "abcdab", true), ("^(ab|cd)+$", "abc", false), ("^(?:a|b)*c$", "ababc", true),
            ("^a{2,3}$", "aaaa", false), ("^a{2,3}$", "aa", true), ("^a{2,}$", "aaaaa", true), ("^a{0}$", "", true), ("^a{0}$", "a", false),
            ("^a*?$", "aaa", true), ("^a+?b", "aaab", true),
            ("^x{,2}$", "x{,2}", true), ("^a}]$", "a}]", true),        // Annex B: braces that count nothing are literal
            ("^\\p{Lu}\\p{Ll}+$", "Émile", true), ("^\\P{L}+$", "123", true), ("^[\\p{L}\\d]+$", "a1é", true),
            ("^\\p{General_Category=Nd}$", "٣", true), ("^\\p{Letter}$", "1", false),
            ("^(?<year>\\d{4})-\\d{2}$", "2026-12", true),
            ("^[\\-a]$", "-", true), ("^[a\\-z]$", "b", false), ("^[\\d-z]$", "-", true), ("^[\\d-z]$", "y", false),
            ("^\\x41\\cJ$", "A\n", true), ("\\0", "\u{0}", true), ("[\\b]", "\u{8}", true), ("^\\/\\.$", "/.", true),
            ("^(|a)+$", "", true), ("^(|a)+$", "aaa", true), ("^(a*)*$", "aaaab", false), ("^(a*)*b$", "aaaab", true),
            ("^(a|ab)(c|bcd)(d*)$", "abcd", true), ("a|^$", "", true),
        ]
        for (pattern, text, expected) in cases {
            #expect(try found(pattern, text) == expected, "\(pattern) on \(text.debugDescription)")
        }
    }

    @Test func refusesWhatItCannotMatchAndSaysWhere() {
        let unsupported: [(String, Int)] = [("(a)\\1", 3), ("(?=a)", 0), ("x(?<!a)b", 1), ("\\k<x>", 0), ("\\p{Script=Greek}", 0), ("\\01", 0)]
        for (pattern, offset) in unsupported {
            let refusal = refusal(pattern)
            #expect(refusal?.kind == .unsupported && refusal?.offset == offset, "\(pattern): \(String(describing: refusal))")
        }
        let invalid: [(String, Int, String)] = [
            ("a**", 2, "nothing to repeat"), ("*a", 0, "nothing to repeat"), ("(a", 0, "unterminated group"), ("a)", 1, "unmatched )"),
            ("[a", 0, "unterminated character class"), ("x[z-a]", 1, "out of order"), ("a{3,1}", 1, "out of order"),
            ("\\q", 0, "unknown escape"), ("^*", 1, "cannot be repeated"), ("a\\", 1, "ends with"), ("\\u{110000}", 0, "code point"),
            ("(?i:a)", 0, "unknown group syntax"), ("{2}", 0, "nothing to repeat"),
        ]
        for (pattern, offset, words) in invalid {
            let refusal = refusal(pattern)
            #expect(refusal?.kind == .invalid && refusal?.offset == offset && refusal?.message.contains(words) == true,
                    "\(pattern): \(String(describing: refusal))")
        }
        #expect(refusal("(a)\\1")?.description == "back-references are not supported (at character 4)")
    }

    @Test func limitsBoundTheAutomatonBeforeItIsBuilt() {
        #expect(refusal("(a{1000}){1000}")?.message.contains("more than 20000 states") == true)
        #expect(refusal("a{99999999999999999999}")?.kind == .unsupported, "a count beyond any automaton is refused, not overflowed")
        #expect(refusal("(){99999999999}")?.kind == .unsupported, "copies of nothing are counted too, not written out for hours")
        #expect(refusal("(?:){1000}")?.kind == nil)
        #expect(refusal(String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100))?.message.contains("nest deeper") == true)
        #expect(refusal(String(repeating: "[a]", count: 70))?.kind == nil, "classes side by side do not nest")
        #expect(refusal(String(repeating: "a", count: 5000))?.message == "the pattern is over the limit of 4096 characters")
        #expect(refusal(String(repeating: "é", count: 4096))?.kind == nil, "characters, not bytes")
        #expect(refusal(String(repeating: "é", count: 4097))?.kind == .unsupported)
        var tight = SchemaPattern.Limits()
        tight.maxProgramSize = 10
        #expect(refusal("^[a-z]{1,63}$", limits: tight)?.kind == .unsupported)
    }

    /// The pattern that takes a backtracking engine 2^n steps: here each character costs the automaton's size, so
    /// 10,000 characters end within a budget a backtracking engine could not keep to for 30.
    @Test func catastrophicPatternsCostLinearTime() throws {
        let pattern = try SchemaPattern("^(a+)+$")
        let text = String(repeating: "a", count: 10_000) + "!"
        var budget = 1_000_000
        #expect(pattern.search(text, budget: &budget) == false)
        #expect(budget > 0, "at most 2 × 10,001 positions × the automaton's size")
        var nested = 1_000_000
        #expect(try SchemaPattern("^((a*)*b|(a|aa)*c)$").search(String(repeating: "a", count: 5000), budget: &nested) == false)
    }

    @Test func anExhaustedBudgetIsNoAnswer() throws {
        var budget = 10_000
        #expect(try SchemaPattern("a{100}b").search(String(repeating: "a", count: 10_000), budget: &budget) == nil)
        #expect(budget < 0)
        var enough = 10_000_000
        #expect(try SchemaPattern("a{100}b").search(String(repeating: "a", count: 10_000) + "b", budget: &enough) == true)
    }
}

/// The same patterns and texts in V8 (Chromium's `new RegExp(pattern, "u").test(text)`), the engine whose language
/// JSON Schema names: random patterns over a grammar every u-mode engine accepts, and short texts.
@Suite(.serialized, .enabled(if: Chromium.executable != nil, Chromium.missingNote("comparing schema patterns with V8")),
       .timeLimit(.minutes(3)), .offPool)
struct SchemaPatternV8Tests {
    struct Generator {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }

        mutating func pick(_ choices: [String]) -> String { choices[next(choices.count)] }

        mutating func pattern(depth: Int = 0) -> String {
            let alternatives = depth < 2 && next(4) == 0 ? 2 : 1
            return (0..<alternatives).map { _ in sequence(depth: depth) }.joined(separator: "|")
        }

        mutating func sequence(depth: Int) -> String {
            (0..<(1 + next(3))).map { _ in term(depth: depth) }.joined()
        }

        mutating func term(depth: Int) -> String {
            if next(8) == 0 { return pick(["^", "$", "\\b", "\\B"]) }
            let atom: String
            switch next(depth < 2 ? 10 : 8) {
            case 0, 1, 2: atom = pick(["a", "b", "c", " ", "1", "_", "-"])
            case 3: atom = pick([".", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\p{L}", "\\P{Ll}", "\\p{Nd}", "\\u{e9}", "\\x61", "\\u0062"])
            case 4: atom = pick(["[ab]", "[^a]", "[a-c]", "[\\d_]", "[^\\s]", "[b-]", "[]", "[^]", "[\\w-]", "\\n", "[\\p{Lu}\\p{N}]", "[^\\P{L}]", "[\\u{e0}-\\u{ff}]"])
            case 5, 6, 7: atom = pick(["a", "b", "ab", "ba"])
            default: atom = pick(["(", "(?:"]) + pattern(depth: depth + 1) + ")"
            }
            switch next(10) {
            case 0: return atom + "*"
            case 1: return atom + "+"
            case 2: return atom + "?"
            case 3: return atom + pick(["{2}", "{1,}", "{0,2}", "{1,3}?", "*?", "+?"])
            default: return atom
            }
        }

        mutating func text() -> String {
            let alphabet = ["a", "b", "c", " ", "1", "_", "-", "\n", "é", "B", "٣", "\u{2028}"]
            return (0..<next(9)).map { _ in pick(alphabet) }.joined()
        }
    }

    @Test func agreesWithV8() throws {
        var generator = Generator(state: 20261207)
        var cases: [(pattern: String, text: String)] = []
        for _ in 0..<1000 {
            let pattern = generator.pattern()
            for _ in 0..<6 { cases.append((pattern, generator.text())) }
        }
        let list = JSONValue.array(cases.map { .array([.string($0.pattern), .string($0.text)]) }).serialized()
        let expression = "JSON.stringify(\(list).map(([p, t]) => { try { return new RegExp(p, 'u').test(t) ? 1 : 0 } catch (e) { return 2 } }))"
        let browser = try HeadlessBrowser("data:text/html,<title>patterns</title>")
        defer { browser.stop() }
        var answer: JSONValue?
        for _ in 0..<100 where answer == nil {
            answer = try? browser.evaluate(expression, inPage: "data:text/html")
            if answer == nil { usleep(100_000) }
        }
        let results = try JSONValue.parse(Array(try #require(answer?.stringValue, "V8 never answered").utf8)).arrayValue ?? []
        try #require(results.count == cases.count)
        var disagreements: [String] = []
        var matched = 0
        for (index, (pattern, text)) in cases.enumerated() {
            let v8 = results[index] == .int(1) ? "match" : results[index] == .int(0) ? "no match" : "syntax error"
            if v8 == "match" { matched += 1 }
            var budget = 1_000_000
            let ours: String
            do throws(SchemaPattern.Refusal) {
                ours = try SchemaPattern(pattern).search(text, budget: &budget).map { $0 ? "match" : "no match" } ?? "out of budget"
            } catch {
                ours = "refused: \(error)"
            }
            if ours != v8 { disagreements.append("/\(pattern)/u on \(text.debugDescription): V8 \(v8), omni \(ours)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(cases.count): \(disagreements.prefix(10).joined(separator: "; "))")
        #expect(matched > cases.count / 5 && matched < cases.count * 4 / 5, "the cases test both outcomes (\(matched) of \(cases.count) match)")
    }
}

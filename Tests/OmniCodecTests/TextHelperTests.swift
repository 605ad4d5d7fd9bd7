import Foundation
import OmniCodec
import OmniTestSupport
import Testing

/// The Foundation-free text helpers against the Foundation calls they replace (tests may link Foundation).
@Suite struct TextHelperTests {
    /// Every scalar of planes 0 and 1 and the odd ones beyond, each alone and around a word, trims as Foundation does.
    @Test func trimmingMatchesFoundationForEveryScalar() {
        var checked = 0
        for value in Array(0...0x1_FFFF) + [0xE0001, 0xE0020, 0xF0000, 0x10FFFD] {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "\(scalar)a b\(scalar)", "\(scalar)\(scalar)x\u{301}\(scalar)"] {
                #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                        "U+\(String(value, radix: 16)) with newlines")
                #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces),
                        "U+\(String(value, radix: 16)) without newlines")
            }
            checked += 1
        }
        #expect(checked > 100_000)
    }

    @Test func trimmingKeepsInnerTextAndCombiningMarks() {
        #expect(" \t a b \n\r\u{2028}".trimmingWhitespaceAndNewlines() == "a b")
        #expect(" \t a b \n".trimmingWhitespace() == "a b \n", "line breaks are not spaces")
        #expect(" \u{301}x".trimmingWhitespaceAndNewlines() == "\u{301}x", "trims scalars, not characters")
        #expect(" \n ".trimmingWhitespaceAndNewlines() == "")
        #expect("".trimmingWhitespace() == "")
        let line = "  PEM line  "[...]
        #expect(line.dropFirst().trimmingWhitespace() == "PEM line", "substrings too")
    }

    /// Random strings drawn from a pool heavy in whitespace, combining marks and non-BMP scalars.
    @Test func trimmingMatchesFoundationOnRandomText() {
        let pool: [Unicode.Scalar] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}",
                                      "\u{200A}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}",
                                      "\u{FEFF}", "a", "é", "\u{301}", "\u{1F600}", "\u{1F3FB}", "\u{0}", "\u{7F}"]
        var random = SeededGenerator()
        for _ in 0..<20_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &random) { text.append(pool.randomElement(using: &random)!) }
            let string = String(text)
            #expect(string.trimmingWhitespaceAndNewlines() == string.trimmingCharacters(in: .whitespacesAndNewlines),
                    "seed \(random.seed): \(string.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(string.trimmingWhitespace() == string.trimmingCharacters(in: .whitespaces),
                    "seed \(random.seed): \(string.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test(arguments: ["", "ab", "production", "development!", "a longer value than eleven"])
    func paddingMatchesFoundation(text: String) {
        for length in [0, 1, 2, 11, 30] {
            #expect(text.paddingWithSpaces(toLength: length) == text.padding(toLength: length, withPad: " ", startingAt: 0))
        }
    }

    @Test func paddingNeverSplitsACharacter() {
        #expect("e\u{301}x".paddingWithSpaces(toLength: 1) == "e\u{301}")
        #expect("👍🏽".paddingWithSpaces(toLength: 3) == "👍🏽  ")
        #expect("abc".paddingWithSpaces(toLength: -1) == "")
    }

    @Test func fixedPointMatchesStringFormat() {
        var random = SeededGenerator()
        var values: [Double] = [0, -0.0, 0.05, -0.05, 0.25, 2.25, 2.35, 1e-7, -1e-7, 9.95, 99.95, 1e15, 1e20, -1e300,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for _ in 0..<2_000 { values.append(Double(bitPattern: random.next())) }
        for _ in 0..<2_000 { values.append(Double.random(in: -1000...1000, using: &random)) }
        for value in values where value.isFinite {
            for digits in [0, 1, 3, 9] {
                #expect(value.fixedPointText(fractionDigits: digits) == String(format: "%.\(digits)f", value),
                        "\(value) with \(digits) digits")
            }
        }
        #expect(Double.nan.fixedPointText(fractionDigits: 1) == "nan")
        #expect((-Double.infinity).fixedPointText(fractionDigits: 1) == "-inf")
        #expect((1.0).fixedPointText(fractionDigits: 99) == "1.00000000000000000", "digits clamp at 17")
    }
}

import Foundation
import OmniCodec
import OmniTestSupport
import Testing

private func jsonError(_ text: String, limits: JSONLimits = .default) -> CodecError? {
    do {
        _ = try JSONValue.parse(text, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// RFC 8259 documents and what they parse to.
private let validJSON: [(text: String, value: JSONValue)] = [
    ("null", nil), ("true", true), ("false", false), ("0", .number("0")), ("-0", .number("-0")),
    ("12", 12), ("-12", -12), ("1.5", .number("1.5")), ("-0.0e+0", .number("-0.0e+0")), ("1E5", .number("1E5")),
    ("1e-7", .number("1e-7")), ("123456789012345678901234567890", .number("123456789012345678901234567890")),
    ("\"\"", ""), ("\"a\"", "a"), (" \t\r\n 7 \t\r\n", 7),
    (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
    (#""\u0041\u00e9\u6C34\u0000""#, "Aé水\u{0}"),
    (#""\ud83d\ude00\uD834\uDD1E""#, "😀𝄞"),
    ("\"é水😀\u{7F}\"", "é水😀\u{7F}"),
    ("[]", []), ("[ ]", []), ("{}", [:]), ("{ }", [:]),
    ("[1,[2,[3]],{\"a\":[]}]", [1, [2, [3]], ["a": []]]),
    ("{\"b\":1,\"a\":2}", ["b": 1, "a": 2]),
    ("{\"\":0}", ["": 0]),
    ("{\"a\" : 1 , \"b\" :\n[ true , null ] }", ["a": 1, "b": [true, nil]]),
]

/// Not JSON; each also refused by Python's json (the differential test checks that).
private let invalidJSON: [String] = [
    "", " ", "nul", "tru", "True", "NaN", "Infinity", "-Infinity", "undefined", "'a'", "01", "-01", "00", "+1", "1.",
    ".5", "1.e5", "1e", "1e+", "-", "--1", "0x10", "1 2", "[1 2]", "[1,]", "[,1]", "[", "]", "[1", "{", "}",
    "{\"a\":1,}", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{1:2}", "{\"a\":1 \"b\":2}", "{\"a\":1,\"a\":2}", "[1]]",
    "\"abc", "\"a\nb\"", "\"a\tb\"", "\"\u{1}\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\'\"", "\"\\\"",
    "// c\n1", "/* c */ 1", "1 // c", "[1]x", "\u{FEFF}1", "\u{A0}1", "[\"a\",]", "{\"a\":[}",
]

/// Not JSON per RFC 8259 §8.2 and our strict reading, though Python's json lets them through.
private let invalidOnlyHere: [String] = [#""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, #""\ud800\ud800""#]

@Suite("JSON parser and writer", .serialized, .offPool)
struct JSONTests {
    @Test("RFC 8259 documents parse to the expected values", arguments: validJSON.indices)
    func valid(index: Int) throws {
        let (text, value) = validJSON[index]
        #expect(try JSONValue.parse(text) == value, "\(text)")
        #expect(try JSONValue.parse(Array(text.utf8)) == value, "\(text)")
    }

    @Test("invalid documents are refused", arguments: invalidJSON + invalidOnlyHere)
    func invalid(_ text: String) {
        let error = jsonError(text)
        #expect(error != nil, "\(text.debugDescription) accepted")
        #expect(error?.format == "JSON")
        #expect(error?.line != nil && error?.column != nil)
    }

    /// The offset is where the invalid sequence starts (as for CBOR, TOML and Candid text).
    @Test("invalid UTF-8 and surrogate escapes are refused with the offending offset")
    func encodings() {
        for (bytes, offset) in [([0x22, 0xC3, 0x28, 0x22], 1), ([0x22, 0xC0, 0x80, 0x22], 1), ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),
                                ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1), ([0x22, 0x61, 0xFF, 0x22], 2), ([0x22, 0xE6, 0xB0], 1),
                                ([0x5B, 0x80, 0x5D], 1)] as [([UInt8], Int)] {
            do {
                _ = try JSONValue.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.offset == offset, "\(bytes): \(error)")
            }
        }
        #expect(jsonError(#""\ud800""#)?.message == "unpaired high surrogate escape")
        #expect(jsonError(#""\udc00""#)?.message == "unpaired low surrogate escape")
        #expect(jsonError(#""\ud800\u0041""#)?.message == "invalid low surrogate escape")
    }

    @Test("errors report line, column and path")
    func errorLocations() throws {
        let error = try #require(jsonError("{\n  \"a\": [1, tru]\n}"))
        #expect(error.line == 2 && error.column == 12)
        #expect(error.path == "$.a[1]")
        #expect(error.description == "malformed JSON (line 2, column 12, at $.a[1]): invalid literal, expected 'true'")
        let duplicate = try #require(jsonError("{\"é\": 1,\n \"é\": 2}"))
        #expect(duplicate.line == 2 && duplicate.column == 2 && duplicate.message == "duplicate key \"é\"")
        let trailing = try #require(jsonError("[1]\n  x"))
        #expect(trailing.line == 2 && trailing.column == 3)
        #expect(try JSONValue.parse("{\"\u{E9}\": 1, \"e\u{301}\": 2}").objectValue?.count == 2)
        let lines = try JSONValue.parseLines("{\"a\":1}\n\n  \n[2]\n")
        #expect(lines == [["a": 1], [2]])
        do {
            _ = try JSONValue.parseLines("1\n2\n[3,\n")
            Issue.record("accepted a broken line")
        } catch {
            #expect(error.line == 3)
        }
    }

    @Test("limits: depth, document, string and number size")
    func limits() throws {
        let limits = JSONLimits(maxDepth: 3, maxBytes: 40, maxStringBytes: 5, maxNumberDigits: 6)
        #expect(jsonError("[[[1]]]", limits: limits) == nil)
        #expect(jsonError("[[[[1]]]]", limits: limits)?.kind == .limitExceeded)
        #expect(jsonError("{\"a\":{\"b\":{\"c\":{}}}}", limits: limits)?.kind == .limitExceeded)
        #expect(jsonError("\"12345\"", limits: limits) == nil)
        #expect(jsonError("\"123456\"", limits: limits)?.kind == .limitExceeded)
        #expect(jsonError("1.5e10", limits: limits) == nil)
        #expect(jsonError("-1.5e10", limits: limits)?.kind == .limitExceeded)
        #expect(jsonError(String(repeating: " ", count: 40) + "1", limits: limits)?.kind == .limitExceeded)
        #expect(jsonError(String(repeating: "[", count: 100_000))?.kind == .limitExceeded)
    }

    @Test("the writer escapes what it must and reads back to the same value")
    func writer() throws {
        let value: JSONValue = ["text": "q\"b\\s/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}é😀", "list": [1, 2.5, -0.0, nil, true],
                                "empty": [:], "none": [], "nested": ["a": ["b": ["c"]]]]
        let compact = value.serialized()
        #expect(compact == #"{"text":"q\"b\\s/\n\r\t\b\f\u0000\u001f\u007fé😀","list":[1,2.5,0,null,true],"empty":{},"none":[],"nested":{"a":{"b":["c"]}}}"#)
        #expect(try JSONValue.parse(compact) == value)
        let pretty = value.serialized(pretty: true)
        #expect(pretty.hasPrefix("{\n  \"text\": \"q"))
        #expect(pretty.contains("\"list\": [\n    1,\n    2.5,"))
        #expect(pretty.contains("\"empty\": {},"))
        #expect(try JSONValue.parse(pretty) == value)
        #expect(JSONValue.double(.infinity) == nil && JSONValue.double(1e20).numberText == "1e+20")
        #expect(JSONValue.int(UInt64.max).numberText == "18446744073709551615")
    }

    @Test("random documents: Python's json reads what we write, and we read what it writes back")
    func randomDocuments() throws {
        let seed = SeededGenerator.freshSeed()
        var generator = RandomJSON(rng: SeededGenerator(seed: seed))
        var values: [JSONValue] = []
        var lines: [String] = []
        for index in 0..<documentCount {
            let value = generator.value(depth: 0)
            values.append(value)
            // Our own round trip in both layouts; the peer reads the compact form, one document per line.
            let text = value.serialized(pretty: index % 4 == 0)
            #expect(try JSONValue.parse(text) == value, "seed \(seed): our own round trip")
            lines.append(value.serialized())
        }
        let answers = try jsonPeer(lines)
        var failures = 0
        for (index, answer) in answers.enumerated() {
            guard let items = answer.arrayValue, items.first == "ok", items.count == 3 else {
                failures += 1
                if failures <= 3 { Issue.record("seed \(seed): Python refused \(lines[index]): \(answer.serialized())") }
                continue
            }
            let expected = tagged(values[index])
            if items[1] != expected {
                failures += 1
                if failures <= 3 { Issue.record("seed \(seed): \(lines[index])\nours: \(expected.serialized())\nPython: \(items[1].serialized())") }
            }
            if let pythonText = items[2].stringValue, (try? JSONValue.parse(pythonText)).map(tagged) != expected {
                failures += 1
                if failures <= 3 { Issue.record("seed \(seed): cannot read back Python's \(pythonText)") }
            }
        }
        #expect(failures == 0, "\(failures) of \(documentCount) documents differ (seed \(seed))")
    }

    @Test("Python's json refuses the invalid corpus too")
    func invalidCorpusMatchesPython() throws {
        let documents = invalidJSON.filter { !$0.contains("\n") }
        let answers = try jsonPeer(documents)
        for (document, answer) in zip(documents, answers) {
            #expect(answer.arrayValue?.first == "error", "Python accepted \(document.debugDescription)")
        }
    }
}

private let documentCount = 2_000

/// The tagged form json_peer.py prints; numbers by value (integers exact, others as IEEE doubles).
private func tagged(_ value: JSONValue) -> JSONValue {
    switch value {
    case .null: return ["null"]
    case .bool(let b): return ["bool", .bool(b)]
    case .number(let text):
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            let bits = (Double(text) ?? .nan).bitPattern
            return ["float", .string(Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }))]
        }
        return ["int", .string(text.allSatisfy { $0 == "-" || $0 == "0" } ? "0" : text)]
    case .string(let s): return ["str", .string(s)]
    case .array(let items): return ["array", .array(items.map(tagged))]
    case .object(let object): return ["object", .array(object.map { [.string($0.key), tagged($0.value)] })]
    }
}

/// Random JSON values: every kind, integers beyond 64 bits, numbers in all syntactic forms, text with escapes,
/// control characters and astral characters, nested containers with unique keys.
private struct RandomJSON {
    var rng: SeededGenerator

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private mutating func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }

    mutating func digits(_ count: Int) -> String {
        String(pick(Array("123456789"))) + String((1..<count).map { _ in pick(Array("0123456789")) })
    }

    mutating func number() -> JSONValue {
        let sign = pick(["", "-"])
        switch int(0...5) {
        case 0: return .number(pick(["0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "18446744073709551616"]))
        case 1: return .number(sign + digits(int(1...30)))
        case 2: return .number(sign + pick(["0", digits(int(1...5))]) + "." + String(digits(int(1...12)).reversed()))
        case 3:
            return .number(sign + pick(["0", digits(int(1...3))]) + pick(["", "." + digits(int(1...6))])
                           + pick(["e", "E"]) + pick(["", "+", "-"]) + String(int(0...300)))
        case 4: return .double(Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng)))
        default: return .double(Double.random(in: -1e9...1e9, using: &rng))
        }
    }

    mutating func string() -> String {
        let pools: [[Character]] = [Array("abc XYZ"), ["\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}"],
                                    ["\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}", "\u{FEFF}", "\u{2028}"],
                                    ["é", "水", "😀", "𝄞", "\u{10FFFF}", "e\u{301}"]]
        return String((0..<pick([0, 1, 3, 8, 20])).map { _ in let pool = pools[int(0...3)]; return pool[int(0...pool.count - 1)] })
    }

    mutating func value(depth: Int) -> JSONValue {
        switch int(0...(depth < 4 ? 9 : 5)) {
        case 0: return nil
        case 1: return .bool(int(0...1) == 1)
        case 2, 3: return number()
        case 4, 5: return .string(string())
        case 6, 7: return .array((0..<pick([0, 1, 3, 6])).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<pick([0, 1, 3, 6]) {
                let key = string()
                if object[key] == nil { object.append(key, value(depth: depth + 1)) }
            }
            return .object(object)
        }
    }
}

/// Runs json_peer.py once over all documents and returns its parsed answers.
private func jsonPeer(_ documents: [String]) throws -> [JSONValue] {
    let input = documents.joined(separator: "\n") + "\n"
    let result = try Subprocess.python("json_peer.py", [], stdin: Data(input.utf8))
    guard result.status == 0 else { throw TestSupportError("json_peer.py failed: \(result.stderrText)") }
    let answers = try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    guard answers.count == documents.count else {
        throw TestSupportError("json_peer.py answered \(answers.count) of \(documents.count) documents")
    }
    return answers
}

import Foundation
import OmniCodec
import OmniTestSupport
import Testing

private func parseError(_ text: String, limits: TOMLLimits = .default) -> CodecError? {
    do {
        _ = try TOMLTable.parse(text, limits: limits)
        return nil
    } catch {
        return error
    }
}

@Suite("TOML reader", .serialized, .offPool)
struct TOMLTests {
    @Test("values of every kind, read as the specification says")
    func specExamples() throws {
        let table = try TOMLTable.parse(validTOMLDocuments[3] + "\n" + validTOMLDocuments[4])
        #expect(table["int1"] == .integer(99))
        #expect(table["int7"] == .integer(5_349_221))
        #expect(table["hex1"] == .integer(0xDEADBEEF))
        #expect(table["oct1"] == .integer(0o01234567))
        #expect(table["bin1"] == .integer(0b11010110))
        #expect(table["min"] == .integer(.min))
        #expect(table["octmax"] == .integer(.max))
        #expect(table["flt8"] == .float(224_617.445_991_228))
        #expect(table["flt9"] == .float(1e11))
        #expect(table["sf3"] == .float(-.infinity))
        #expect(table["sf6"]?.doubleValue?.isNaN == true)
        #expect(table["negzero"]?.doubleValue?.sign == .minus)
        #expect(table["huge"] == .float(.infinity))
        #expect(table["tiny"] == .float(.leastNonzeroMagnitude))
        let odt = try #require(table["odt6"]?.dateTimeValue)
        #expect(odt.kind == .offsetDateTime && odt.offsetMinutes == 330 && odt.fraction == "123456789")
        #expect(odt.nanosecond == 123_456_789 && odt.text == "1979-05-27T07:32:00.123456789+05:30")
        #expect(table["odt4"] == table["odt1"])
        #expect(table["odt5"] == table["odt1"])
        #expect(table["odt2"]?.dateTimeValue?.offsetMinutes == -420)
        #expect(table["ld1"]?.dateTimeValue?.kind == .localDate)
        #expect(table["ld1"]?.dateTimeValue?.hour == nil)
        #expect(table["lt2"]?.dateTimeValue?.kind == .localTime)
        #expect(table["lt2"]?.dateTimeValue?.year == nil)
        #expect(table["ldt3"]?.dateTimeValue?.nanosecond == 500_000_000)
        #expect(table["date_then_comment"]?.dateTimeValue?.kind == .localDate)

        let strings = try TOMLTable.parse(validTOMLDocuments[2])
        #expect(strings["str"]?.stringValue == "I'm a string. \"You can quote me\". Name\tJosé\nLocation\tSF.")
        #expect(strings["str1"]?.stringValue == "Roses are red\nViolets are blue")
        #expect(strings["str2"]?.stringValue == "The quick brown fox jumps over the lazy dog.")
        #expect(strings["str3"]?.stringValue == "The quick brown fox jumps over the lazy dog.")
        #expect(strings["str6"]?.stringValue == "Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\".")
        #expect(strings["str7"]?.stringValue == "\"This,\" she said, \"is just a pointless statement.\"")
        #expect(strings["str8"]?.stringValue == "ab")
        #expect(strings["winpath2"]?.stringValue == "\\\\ServerX\\admin$\\system32\\")
        #expect(strings["lines"]?.stringValue == "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n")
        #expect(strings["str9"]?.stringValue == "'That,' she said, 'is still pointless.'")
        #expect(strings["escapes"]?.stringValue == "\u{8}\t\n\u{C}\r\"\\\u{0}😀é\u{7F}")
        #expect(strings["empty_ml"]?.stringValue == "")
    }

    @Test("keys, tables, dotted keys and arrays of tables build the right tree in document order")
    func structure() throws {
        let keys = try TOMLTable.parse(validTOMLDocuments[1])
        #expect(keys["physical"]?["shape"]?.stringValue == "round")
        #expect(keys.value(at: ["site", "google.com"]) == .bool(true))
        #expect(keys.value(atDottedPath: "site.\"google.com\"") == .bool(true))
        #expect(keys.value(at: ["3", "14159"])?.stringValue == "pi")
        #expect(keys[""]?.stringValue == "blank")
        #expect(keys["é\t\""]?.stringValue == "escaped key")
        #expect(keys.value(atDottedPath: "fruit . flavor")?.stringValue == "banana")
        #expect(keys.value(atDottedPath: "fruit.") == nil)
        #expect(keys.value(at: []) == nil)
        #expect(keys.keys.prefix(4) == ["key", "bare_key", "bare-key", "1234"])

        let products = try TOMLTable.parse(validTOMLDocuments[10])
        let list = try #require(products["products"]?.arrayValue)
        #expect(list.count == 3)
        #expect(list[1] == .table(TOMLTable()))
        #expect(list[2]["color"]?.stringValue == "gray")
        let fruits = try #require(products["fruits"]?.arrayValue)
        #expect(fruits[0]["varieties"]?.arrayValue?.count == 2)
        #expect(fruits[1].tableValue?.value(at: ["physical", "color"])?.stringValue == "yellow")
        #expect(fruits[1]["varieties"]?.arrayValue?.first?["points"]?.arrayValue?.count == 3)

        let implicit = try TOMLTable.parse(validTOMLDocuments[11])
        #expect(implicit.value(at: ["a", "b"])?.tableValue?.keys == ["c", "d", "e"])
        #expect(implicit["a"]?.tableValue?.keys == ["b", "x"])
    }

    @Test("a config file reads as expected, with lookup by path and a JSON form")
    func configFile() throws {
        let config = try TOMLTable.parse(#"""
            default_profile = "main"
            [profile.main]
            network = "ic"
            identity = 'alice'
            timeout = 30
            [profile."local dev"]
            network = "local"
            ports = [4943, 8080]
            started = 2024-01-02T03:04:05Z
            ratio = 0.5
            special = -inf
            """#)
        #expect(config.value(at: ["profile", "main", "network"])?.stringValue == "ic")
        #expect(config.value(atDottedPath: #"profile."local dev".network"#)?.stringValue == "local")
        #expect(config.value(at: ["profile", "main", "missing"]) == nil)
        #expect(config.value(at: ["default_profile", "x"]) == nil)
        let json = config.jsonValue.serialized()
        #expect(json == #"{"default_profile":"main","profile":{"main":{"network":"ic","identity":"alice","timeout":30},"local dev":{"network":"local","ports":[4943,8080],"started":"2024-01-02T03:04:05Z","ratio":0.5,"special":"-inf"}}}"#)
    }

    @Test("keys are compared by code points: precomposed and decomposed é are different keys")
    func exactKeys() throws {
        let table = try TOMLTable.parse("\"\u{E9}\" = 1\n\"e\u{301}\" = 2\n[\"\u{E9}x\"]\n[\"e\u{301}x\"]")
        #expect(table.count == 4)
        #expect(table["\u{E9}"] == .integer(1) && table["e\u{301}"] == .integer(2))
        var copy = table
        copy["\u{E9}"] = nil
        #expect(copy.keys.count == 3 && copy["e\u{301}"] == .integer(2))
        #expect(parseError("\"\u{E9}\" = 1\n\"\\u00e9\" = 2")?.message.contains("duplicate") == true)
    }

    @Test("errors give line, column, key path and a clear message")
    func errorLocations() throws {
        let duplicate = try #require(parseError("a = 1\n  a = 2"))
        #expect(duplicate.line == 2 && duplicate.column == 3)
        #expect(duplicate.message == "duplicate key a")
        #expect(duplicate.path == "a")
        #expect(duplicate.description == "malformed TOML (line 2, column 3, at a): duplicate key a")
        let twice = try #require(parseError("[x]\n[ x ]"))
        #expect(twice.line == 2 && twice.column == 1 && twice.message.contains("defined more than once"))
        let missingEquals = try #require(parseError("key value"))
        #expect(missingEquals.message == "expected '=' after key, found 'v'")
        #expect(missingEquals.line == 1 && missingEquals.column == 5)
        let inline = try #require(parseError("t = {a = 1}\nt.b = 2"))
        #expect(inline.message.contains("inline table") && inline.line == 2 && inline.column == 1)
        let unicode = try #require(parseError("\"ü\" = \"é\" 水"))
        #expect(unicode.column == 11 && unicode.message == "expected a newline or end of document, found '水'")
        #expect(parseError("k = \"\u{1}\"")?.message == "control character U+0001 must be escaped")
        let quoted = try #require(parseError("[\"a b\".c]\nx = 1\n[\"a b\".c]"))
        #expect(quoted.path == "\"a b\".c")
        let badEscape = try #require(parseError("s = \"ok \\q\""))
        #expect(badEscape.column == 9 && badEscape.message.contains("invalid escape"))
        let date = try #require(parseError("d = 2023-02-29"))
        #expect(date.message.contains("invalid date 2023-02-29"))
        let range = try #require(parseError("n = 9223372036854775808"))
        #expect(range.message.contains("64-bit range"))
    }

    @Test("positions: each key, header, array-of-tables element and array element has its line and column")
    func positions() throws {
        let text = """
            # manifest
            top = 1
            [[canister]]
            name = "A"
              did = "a.did"
            methods = ["x",
              "y"]

            [[canister]]
            name = "B"
            inline = { k = 1, deep.er = 2 }
            [table.sub]
            key = true
            """
        let (table, positions) = try TOMLTable.parseWithPositions(Array(text.utf8))
        #expect(table == (try TOMLTable.parse(text)))
        func at(_ path: TOMLPathComponent...) -> [Int]? {
            positions.position(of: path).map { [$0.line, $0.column] }
        }
        #expect(at(.key("top")) == [2, 1])
        #expect(at(.key("canister"), .index(0)) == [3, 1])
        #expect(at(.key("canister"), .index(0), .key("name")) == [4, 1])
        #expect(at(.key("canister"), .index(0), .key("did")) == [5, 3])
        #expect(at(.key("canister"), .index(0), .key("methods"), .index(1)) == [7, 3])
        #expect(at(.key("canister"), .index(1)) == [9, 1])
        #expect(at(.key("canister"), .index(1), .key("inline"), .key("deep")) == [11, 19])
        #expect(at(.key("canister"), .index(1), .key("inline"), .key("deep"), .key("er")) == [11, 24])
        #expect(at(.key("table"), .key("sub"), .key("key")) == [13, 1])
        #expect(at(.key("nothing")) == nil)
        #expect(positions.nearestPosition(of: [.key("canister"), .index(1), .key("name"), .index(4)]).map(\.line) == 10)
        // A plain parse records nothing, and errors are the same either way.
        #expect(throws: CodecError.self) { try TOMLTable.parseWithPositions(Array("a = \"\u{1}\"".utf8)) }
    }

    @Test("integers beyond 64 bits are refused (tomllib accepts them, the specification does not)",
          arguments: outOfRangeIntegers)
    func outOfRange(_ document: String) {
        #expect(parseError(document)?.message.contains("64-bit range") == true, "\(document)")
    }

    @Test("limits: nesting depth and document size")
    func limits() throws {
        let limits = TOMLLimits(maxDepth: 4, maxBytes: 64)
        // The root is depth 0; `a = [...]` puts the array at depth 1.
        #expect(parseError("a = [[[[1]]]]", limits: limits) == nil)
        #expect(parseError("a = [[[[[1]]]]]", limits: limits)?.kind == .limitExceeded)
        #expect(parseError("a.b.c = {d = {}}", limits: limits) == nil)
        #expect(parseError("a.b.c = {d = {e = {}}}", limits: limits)?.kind == .limitExceeded)
        #expect(parseError("[a.b.c.d]", limits: limits) == nil)
        #expect(parseError("[a.b.c.d.e]", limits: limits)?.kind == .limitExceeded)
        #expect(parseError("[a.b]\nc.d.e = 1", limits: limits) == nil)
        #expect(parseError("[a.b]\nc.d.e.f = 1", limits: limits)?.kind == .limitExceeded)
        #expect(parseError(String(repeating: "#", count: 65), limits: limits)?.kind == .limitExceeded)
        // The default depth stops hostile nesting long before the stack would.
        #expect(parseError("a = " + String(repeating: "[", count: 100_000))?.kind == .limitExceeded)
        #expect(parseError("a = " + String(repeating: "{b = ", count: 10_000))?.kind == .limitExceeded)
        #expect(parseError(String(repeating: "a.", count: 10_000) + "b = 1")?.kind == .limitExceeded)
    }

    @Test("byte input must be UTF-8")
    func utf8Bytes() throws {
        #expect(try TOMLTable.parse(Array("a = \"é\"".utf8))["a"]?.stringValue == "é")
        do {
            _ = try TOMLTable.parse([0x61, 0x20, 0x3D, 0x20, 0x22, 0xC3, 0x28, 0x22])
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.offset == 5 && error.message == "invalid UTF-8")
        }
    }

    @Test("the hand-written valid corpus reads the same in tomllib")
    func validCorpusMatchesTomllib() throws {
        let answers = try tomlPeer(validTOMLDocuments)
        for (document, answer) in zip(validTOMLDocuments, answers) {
            do {
                let ours = try TOMLTable.parse(document)
                #expect(answer == ["ok": tagged(.table(ours))], "\(document)")
            } catch {
                Issue.record("refused \(document): \(error); tomllib: \(answer.serialized())")
            }
        }
    }

    @Test("the invalid corpus is refused by both")
    func invalidCorpusRefusedByBoth() throws {
        let answers = try tomlPeer(invalidTOMLDocuments)
        for (document, answer) in zip(invalidTOMLDocuments, answers) {
            #expect(answer["error"] != nil, "tomllib accepted \(document.debugDescription)")
            #expect(parseError(document) != nil, "accepted \(document.debugDescription)")
        }
    }

    @Test("random documents read the same here, in tomllib and as generated")
    func randomDocuments() throws {
        let seed = SeededGenerator.freshSeed()
        var generator = RandomTOML(rng: SeededGenerator(seed: seed))
        var documents: [String] = []
        var models: [TOMLTable] = []
        for _ in 0..<documentCount {
            let model = generator.table(depth: 0)
            models.append(model)
            documents.append(generator.render(model))
        }
        let answers = try tomlPeer(documents)
        var failures = 0
        for (index, (document, answer)) in zip(documents, answers).enumerated() {
            do {
                let ours = try TOMLTable.parse(document)
                if !sameIgnoringOrder(.table(ours), .table(models[index])) || answer != ["ok": tagged(.table(ours))] {
                    failures += 1
                    if failures <= 3 {
                        Issue.record("seed \(seed), document \(index):\n\(document)\nours: \(tagged(.table(ours)).serialized())\ntomllib: \(answer.serialized())")
                    }
                }
            } catch {
                failures += 1
                if failures <= 3 { Issue.record("seed \(seed), document \(index) refused: \(error)\n\(document)") }
            }
        }
        #expect(failures == 0, "\(failures) of \(documents.count) documents differ (seed \(seed))")
    }

    @Test("near-miss documents: tomllib and we accept and refuse the same ones, and read accepted ones alike")
    func mutatedDocuments() throws {
        let seed = SeededGenerator.freshSeed()
        var generator = RandomTOML(rng: SeededGenerator(seed: seed))
        var rng = SeededGenerator(seed: seed ^ 0x70E1)
        var documents: [String] = []
        while documents.count < mutationCount {
            var characters = Array(generator.render(generator.table(depth: 0, maxEntries: 4)))
            guard !characters.isEmpty else { continue }
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                let position = Int.random(in: 0..<characters.count, using: &rng)
                let replacement = Array(mutationAlphabet[Int.random(in: 0..<mutationAlphabet.count, using: &rng)])
                switch Int.random(in: 0...2, using: &rng) {
                case 0: characters.replaceSubrange(position...position, with: replacement)
                case 1: characters.insert(contentsOf: replacement, at: position)
                default: characters.remove(at: position)
                }
                if characters.isEmpty { break }
            }
            documents.append(String(characters))
        }
        let answers = try tomlPeer(documents)
        var accepted = 0, refused = 0, disagreements = 0
        for (document, answer) in zip(documents, answers) {
            let ours: Result<TOMLTable, CodecError>
            do throws(CodecError) { ours = .success(try TOMLTable.parse(document)) } catch { ours = .failure(error) }
            switch (ours, answer["ok"]) {
            case (.success(let table), .some(let theirs)):
                accepted += 1
                if tagged(.table(table)) != theirs {
                    disagreements += 1
                    Issue.record("seed \(seed): read differently: \(document.debugDescription)\nours: \(tagged(.table(table)).serialized())\ntomllib: \(theirs.serialized())")
                }
            case (.failure, nil):
                refused += 1
            case (.failure(let error), .some):
                // tomllib keeps integers of any size; TOML 1.0 requires refusing what does not fit 64 bits.
                if error.message.contains("64-bit range") { continue }
                disagreements += 1
                Issue.record("seed \(seed): refused here (\(error)) but tomllib accepts: \(document.debugDescription)")
            case (.success, nil):
                disagreements += 1
                Issue.record("seed \(seed): accepted here but tomllib says \(answer.serialized()): \(document.debugDescription)")
            }
        }
        #expect(disagreements == 0, "seed \(seed)")
        #expect(accepted > mutationCount / 10 && refused > mutationCount / 3, "accepted \(accepted), refused \(refused)")
    }
}

private let mutationCount = 2_000

private let documentCount = 1_000

/// Single-character edits that turn valid TOML into near-miss documents.
private let mutationAlphabet: [String] = ["", " ", "\n", "\r\n", "\r", "=", ".", ",", "[", "]", "{", "}", "\"", "'", "\\",
                                          "#", "_", "0", "9", "e", "x", "+", "-", ":", "T", "Z", "a", "\t", "\u{1}", "é"]

/// The tagged form toml_peer.py prints; see its docstring.
private func tagged(_ value: TOMLValue) -> JSONValue {
    switch value {
    case .string(let s): return ["string", .string(s)]
    case .integer(let n): return ["integer", .string(String(n))]
    case .float(let d):
        return ["float", .string(d.isNaN ? "nan" : Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: d.bitPattern >> (56 - 8 * UInt64($0))) }))]
    case .bool(let b): return ["bool", .bool(b)]
    case .dateTime(let d):
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        let year = String(d.year ?? 0)
        let date = String(repeating: "0", count: 4 - year.count) + year + "-" + two(d.month) + "-" + two(d.day)
        let micro = String((d.fraction ?? "").prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
        let clock = two(d.hour) + ":" + two(d.minute) + ":" + two(d.second) + "." + micro
        switch d.kind {
        case .offsetDateTime:
            let minutes = d.offsetMinutes ?? 0
            return [.string(d.kind.rawValue),
                    .string(date + "T" + clock + (minutes < 0 ? "-" : "+") + two(abs(minutes) / 60) + ":" + two(abs(minutes) % 60))]
        case .localDateTime: return [.string(d.kind.rawValue), .string(date + "T" + clock)]
        case .localDate: return [.string(d.kind.rawValue), .string(date)]
        case .localTime: return [.string(d.kind.rawValue), .string(clock)]
        }
    case .array(let items): return ["array", .array(items.map(tagged))]
    case .table(let table): return ["table", .object(JSONObject(table.entries.map { ($0.key, tagged($0.value)) }))]
    }
}

/// Equality with tables compared as unordered maps (the renderer may move keys into later sections).
private func sameIgnoringOrder(_ a: TOMLValue, _ b: TOMLValue) -> Bool {
    switch (a, b) {
    case (.table(let x), .table(let y)):
        return x.count == y.count && x.allSatisfy { entry in y[entry.key].map { sameIgnoringOrder(entry.value, $0) } ?? false }
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameIgnoringOrder)
    case (.float(let x), .float(let y)):
        return x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
    default:
        return a == b
    }
}

/// Runs toml_peer.py once over all documents (one JSON string per line) and returns its parsed answers.
private func tomlPeer(_ documents: [String]) throws -> [JSONValue] {
    let input = documents.map { JSONValue.string($0).serialized() }.joined(separator: "\n") + "\n"
    let result = try Subprocess.python("toml_peer.py", [], stdin: Data(input.utf8))
    guard result.status == 0 else { throw TestSupportError("toml_peer.py failed: \(result.stderrText)") }
    let answers = try result.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    guard answers.count == documents.count else {
        throw TestSupportError("toml_peer.py answered \(answers.count) of \(documents.count) documents")
    }
    return answers
}

import OmniTestSupport
import OmniCodec

/// Random TOML models and a renderer that writes each in randomly chosen but valid syntax: every string form with
/// escapes and line-ending backslashes, integers in four bases with underscores, floats and specials, all date-time
/// kinds and spellings, multi-line arrays with comments, inline tables, dotted keys, standard tables (sometimes left
/// implicit), arrays of tables, CRLF line ends.
struct RandomTOML {
    var rng: SeededGenerator

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    private mutating func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }

    // MARK: Models

    mutating func key() -> String {
        switch int(0...5) {
        case 0: return pick(["a", "b", "key", "x-y", "snake_case", "123", "true", "inf", "nan", "1e5", "-"])
        case 1: return pick(["", " ", "a.b", "with space", "quote\"d", "apos'd", "ü", "水", "😀", "tab\there", "back\\slash"])
        case 2: return pick(["line\nbreak", "ctl\u{1}", "del\u{7F}", "cr\r"])
        default: return String((0..<int(1...8)).map { _ in pick(Array("abcdefghij_-0123456789")) })
        }
    }

    mutating func text() -> String {
        let pools: [[Character]] = [Array("abc xyz"), ["\"", "'", "\\", "\t", "\n", "#", "=", "["],
                                    ["é", "水", "😀", "𐅑", "\u{FEFF}", "\u{10FFFF}", "ü"], ["\u{1}", "\u{7F}", "\u{1F}", "\r", "\u{8}"]]
        return String((0..<pick([0, 1, 2, 5, 12, 30])).map { _ in
            let pool = pools[chance(80) ? int(0...2) : 3]
            return pool[int(0...pool.count - 1)]
        })
    }

    mutating func integer() -> Int64 {
        switch int(0...3) {
        case 0: return pick([0, 1, -1, .max, .min, 0x7F, 1_000_000])
        case 1: return Int64(int(-1000...1000))
        default: return Int64.random(in: .min ... .max, using: &rng) >> Int64(int(0...62))
        }
    }

    mutating func float() -> Double {
        switch int(0...4) {
        case 0: return pick([0.0, -0.0, .infinity, -.infinity, .nan, 0.1, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.5])
        case 1:
            let value = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng))
            return value.isFinite ? value : 2.5
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    mutating func dateTime() -> TOMLValue {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = int(1...9999), month = int(1...12)
        let days = month == 2 ? ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28)
            : [4, 6, 9, 11].contains(month) ? 30 : 31
        let yearText = String(repeating: "0", count: 4 - String(year).count) + String(year)
        let date = yearText + "-" + two(month) + "-" + two(int(1...days))
        var time = two(int(0...23)) + ":" + two(int(0...59)) + ":" + two(int(0...59))
        if chance(40) { time += "." + String((0..<int(1...9)).map { _ in pick(Array("0123456789")) }) }
        let offset = chance(50) ? pick(["Z", "z"]) : pick(["+", "-"]) + two(int(0...23)) + ":" + two(int(0...59))
        let text: String
        switch int(0...3) {
        case 0: text = date + pick(["T", "t", " "]) + time + offset
        case 1: text = date + pick(["T", "t", " "]) + time
        case 2: text = date
        default: text = time
        }
        // The generator's own reader builds the value; tomllib's reading of the rendered text is the check.
        return (try? TOMLTable.parse("v = " + text))?["v"] ?? .string(text)
    }

    mutating func scalar() -> TOMLValue {
        switch int(0...5) {
        case 0, 1: return .string(text())
        case 2: return .integer(integer())
        case 3: return .float(float())
        case 4: return .bool(chance(50))
        default: return dateTime()
        }
    }

    mutating func value(depth: Int) -> TOMLValue {
        switch int(0...(depth < 2 ? 9 : 5)) {
        case 0...5: return scalar()
        case 6, 7: return .array((0..<pick([0, 1, 2, 4])).map { _ in value(depth: depth + 1) })
        default: return .table(table(depth: depth + 1, maxEntries: 3))
        }
    }

    mutating func table(depth: Int, maxEntries: Int = 6) -> TOMLTable {
        var table = TOMLTable()
        for _ in 0..<int(0...maxEntries) {
            let name = key()
            guard table[name] == nil else { continue }
            switch int(0...9) {
            case 0...1 where depth < 3: table[name] = .table(self.table(depth: depth + 1))
            case 2 where depth < 3:
                table[name] = .array((0..<int(1...3)).map { _ in .table(self.table(depth: depth + 1, maxEntries: 4)) })
            default: table[name] = value(depth: depth)
            }
        }
        return table
    }

    // MARK: Rendering

    mutating func render(_ root: TOMLTable) -> String {
        var out = chance(20) ? "# generated\n" : ""
        _ = renderSection(root, path: [], into: &out)
        return out
    }

    private mutating func lineEnd() -> String {
        (chance(15) ? pick([" # comment", "\t#", " # \"quoted\" = 1 [x]"]) : "") + (chance(20) ? "\r\n" : "\n")
            + (chance(10) ? "\n" : "")
    }

    private mutating func indent() -> String { chance(15) ? pick(["  ", "\t", " \t"]) : "" }

    private static func isBare(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    private mutating func renderKey(_ parts: [String]) -> String {
        parts.map { part -> String in
            if RandomTOML.isBare(part), chance(80) { return part }
            let literalOK = !part.contains("'") && !part.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
            return literalOK && chance(40) ? "'" + part + "'" : basicString(part)
        }.joined(separator: pick([".", ".", " . ", ". "]))
    }

    private mutating func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: chance(50))
        if scalar.value <= 0xFFFF, chance(70) { return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex }
        return "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    private mutating func basicString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += chance(70) ? "\\n" : escape(scalar)
            case "\t": out += pick(["\t", "\\t"])
            case "\r": out += "\\r"
            case "\u{8}": out += "\\b"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (!scalar.isASCII && chance(30)) {
                    out += escape(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private mutating func multilineBasicString(_ s: String) -> String {
        var out = "\"\"\""
        if s.hasPrefix("\n") || chance(50) { out += chance(30) ? "\r\n" : "\n" }
        for scalar in s.unicodeScalars {
            // A line-ending backslash before visible text trims nothing that belongs to the value.
            if chance(5), scalar != " ", scalar != "\t", scalar != "\n" { out += "\\" + pick(["", " ", "\t"]) + "\n" + pick(["", "  ", "\n\t "]) }
            switch scalar {
            case "\"": out += chance(50) ? "\\\"" : "\\u0022"
            case "\\": out += "\\\\"
            case "\n": out += "\n"
            case "\t": out += "\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\"\"\""
    }

    private mutating func renderString(_ s: String) -> String {
        let controls = s.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t" && $0 != "\n") || $0.value == 0x7F }
        let literalOK = !controls && !s.contains("'") && !s.contains("\n")
        let multilineLiteralOK = !controls && !s.contains("'''") && !s.hasSuffix("'''")
        switch int(0...3) {
        case 0 where literalOK: return "'" + s + "'"
        case 1 where multilineLiteralOK:
            return "'''" + (s.hasPrefix("\n") || chance(50) ? "\n" : "") + s + "'''"
        case 2: return multilineBasicString(s)
        default: return basicString(s)
        }
    }

    private mutating func withUnderscores(_ digits: String) -> String {
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, chance(15) { out += "_" }
            out.append(digit)
        }
        return out
    }

    private mutating func renderInteger(_ n: Int64) -> String {
        if n >= 0, chance(40) {
            let (prefix, radix) = pick([("0x", 16), ("0o", 8), ("0b", 2)])
            let digits = String(repeating: "0", count: chance(30) ? int(1...3) : 0) + String(n, radix: radix, uppercase: chance(50))
            return prefix + withUnderscores(digits)
        }
        let magnitude = withUnderscores(String(n.magnitude))
        return (n < 0 ? "-" : chance(20) ? "+" : "") + magnitude
    }

    private mutating func renderFloat(_ d: Double) -> String {
        if d.isNaN { return pick(["nan", "+nan", "-nan"]) }
        if d.isInfinite { return d < 0 ? "-inf" : pick(["inf", "+inf"]) }
        var text = "\(d)"
        if chance(30) { text = text.replacingOccurrences(of: "e", with: "E") }
        if d.sign == .plus, chance(20) { text = "+" + text }
        return text
    }

    mutating func inlineValue(_ value: TOMLValue) -> String {
        switch value {
        case .string(let s): return renderString(s)
        case .integer(let n): return renderInteger(n)
        case .float(let d): return renderFloat(d)
        case .bool(let b): return b ? "true" : "false"
        case .dateTime(let d): return d.text
        case .array(let items):
            var out = "["
            for (index, item) in items.enumerated() {
                out += pick(["", " ", "\n  ", "\r\n\t"]) + inlineValue(item)
                if index < items.count - 1 || chance(30) { out += "," }
                if chance(10) { out += " # note\n" }
            }
            return out + pick(["", "\n", " "]) + "]"
        case .table(let table):
            var pairs: [String] = []
            for entry in table { pairs += inlinePairs(prefix: [entry.key], entry.value) }
            return pairs.isEmpty ? pick(["{}", "{ }"]) : "{" + pick(["", " "]) + pairs.joined(separator: pick([", ", ","])) + pick(["", " "]) + "}"
        }
    }

    /// `key = value` pairs for an inline table; non-empty sub-tables sometimes become dotted keys.
    private mutating func inlinePairs(prefix: [String], _ value: TOMLValue) -> [String] {
        if case .table(let table) = value, !table.isEmpty, chance(40) {
            return table.flatMap { inlinePairs(prefix: prefix + [$0.key], $0.value) }
        }
        return [renderKey(prefix) + pick([" = ", "=", " =\t"]) + inlineValue(value)]
    }

    /// Writes `key = value` lines (sub-tables sometimes as dotted keys), then the sections of deferred sub-tables
    /// and arrays of tables. Returns whether any key/value line was written directly in this section.
    private mutating func renderSection(_ table: TOMLTable, path: [String], into out: inout String) -> Bool {
        var wroteLine = false
        var deferredTables: [(String, TOMLTable)] = []
        var deferredArrays: [(String, [TOMLTable])] = []
        for entry in table {
            switch entry.value {
            case .table(let sub) where path.count < 6 && chance(60):
                deferredTables.append((entry.key, sub))
            case .table(let sub) where !sub.isEmpty && chance(50):
                renderDotted(sub, prefix: [entry.key], into: &out)
                wroteLine = true
            case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.tableValue != nil }) && chance(70):
                deferredArrays.append((entry.key, items.compactMap(\.tableValue)))
            default:
                out += indent() + renderKey([entry.key]) + pick([" = ", "=", " =\t"]) + inlineValue(entry.value) + lineEnd()
                wroteLine = true
            }
        }
        for (key, sub) in deferredTables {
            var body = ""
            let direct = renderSection(sub, path: path + [key], into: &body)
            // A table with only sub-sections may stay implicit: its children's headers create it.
            if direct || body.isEmpty || chance(50) {
                out += indent() + "[" + pick(["", " "]) + renderKey(path + [key]) + pick(["", " "]) + "]" + lineEnd()
            }
            out += body
        }
        for (key, elements) in deferredArrays {
            for element in elements {
                out += indent() + "[[" + pick(["", " "]) + renderKey(path + [key]) + pick(["", " "]) + "]]" + lineEnd()
                _ = renderSection(element, path: path + [key], into: &out)
            }
        }
        return wroteLine
    }

    private mutating func renderDotted(_ table: TOMLTable, prefix: [String], into out: inout String) {
        for entry in table {
            if case .table(let sub) = entry.value, !sub.isEmpty, chance(50) {
                renderDotted(sub, prefix: prefix + [entry.key], into: &out)
            } else {
                out += indent() + renderKey(prefix + [entry.key]) + " = " + inlineValue(entry.value) + lineEnd()
            }
        }
    }
}

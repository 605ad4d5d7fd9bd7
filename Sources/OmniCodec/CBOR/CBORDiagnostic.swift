/// RFC 8949 §8 diagnostic notation: `{"a": [1, h'0102', 24(-1.5)], _ …}`, with `_` marking indefinite lengths.
extension CBOR: CustomStringConvertible {
    public var description: String { diagnostic() }

    /// The diagnostic notation of this value. `asciiOnly` writes non-ASCII text as `\uXXXX` escapes (UTF-16, as
    /// the RFC's examples do) instead of UTF-8.
    public func diagnostic(asciiOnly: Bool = false) -> String {
        var writer = DiagnosticWriter(asciiOnly: asciiOnly, limit: .max)
        writer.write(self)
        return String(decoding: writer.out, as: UTF8.self)
    }

    /// A diagnostic cut to about `maxLength` characters, for error messages about untrusted values.
    func diagnostic(maxLength: Int) -> String {
        var writer = DiagnosticWriter(asciiOnly: true, limit: maxLength)
        writer.write(self)
        if writer.out.count > maxLength { return String(decoding: writer.out.prefix(maxLength), as: UTF8.self) + "…" }
        return String(decoding: writer.out, as: UTF8.self)
    }
}

private struct DiagnosticWriter {
    let asciiOnly: Bool
    let limit: Int
    var out: [UInt8] = []

    init(asciiOnly: Bool, limit: Int) {
        self.asciiOnly = asciiOnly
        self.limit = limit
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func append(_ text: String) { out.append(contentsOf: text.utf8) }

    mutating func write(_ item: CBOR) {
        // Past the limit the rest is dropped anyway; stopping early bounds work on huge values.
        guard out.count <= limit else { return }
        switch item {
        case .unsigned(let n): append(String(n))
        case .negative(let n): append(n == .max ? "-18446744073709551616" : "-" + String(n + 1))
        case .bytes(let b): writeBytes(b)
        case .text(let s): writeText(s)
        case .array(let items): writeArray(items, indefinite: false)
        case .indefiniteArray(let items): writeArray(items, indefinite: true)
        case .map(let pairs): writeMap(pairs, indefinite: false)
        case .indefiniteMap(let pairs): writeMap(pairs, indefinite: true)
        case .tagged(let number, let content):
            append(String(number) + "(")
            write(content)
            append(")")
        case .bool(let b): append(b ? "true" : "false")
        case .null: append("null")
        case .undefined: append("undefined")
        case .simple(let n): append("simple(\(n))")
        case .float(let value, _): append(DiagnosticWriter.format(value))
        case .byteChunks(let chunks):
            append("(_ ")
            for (i, chunk) in chunks.enumerated() {
                if i > 0 { append(", ") }
                writeBytes(chunk)
            }
            append(")")
        case .textChunks(let chunks):
            append("(_ ")
            for (i, chunk) in chunks.enumerated() {
                if i > 0 { append(", ") }
                writeText(chunk)
            }
            append(")")
        }
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return String(value)
    }

    private mutating func writeBytes(_ bytes: [UInt8]) {
        append("h'")
        for byte in bytes.prefix(max(0, limit - out.count) / 2 + 1) {
            out.append(DiagnosticWriter.hexDigits[Int(byte >> 4)])
            out.append(DiagnosticWriter.hexDigits[Int(byte & 0xF)])
        }
        append("'")
    }

    private mutating func writeText(_ text: String) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            guard out.count <= limit else { break }
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (asciiOnly && scalar.value > 0x7F) {
                    for unit in String(scalar).utf16 { writeEscape(unit) }
                } else {
                    out.append(contentsOf: String(scalar).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscape(_ unit: UInt16) {
        append("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(DiagnosticWriter.hexDigits[Int(unit >> UInt16(shift) & 0xF)])
        }
    }

    private mutating func writeArray(_ items: [CBOR], indefinite: Bool) {
        append("[")
        if indefinite { append("_ ") }
        for (i, item) in items.enumerated() {
            if i > 0 { append(", ") }
            write(item)
        }
        append("]")
    }

    private mutating func writeMap(_ pairs: [CBOR.Pair], indefinite: Bool) {
        append("{")
        if indefinite { append("_ ") }
        for (i, pair) in pairs.enumerated() {
            if i > 0 { append(", ") }
            write(pair.key)
            append(": ")
            write(pair.value)
        }
        append("}")
    }
}

/// Limits for parsing untrusted JSON. Exceeding one is a `CodecError` of kind `.limitExceeded`, never a crash.
public struct JSONLimits: Sendable {
    public var maxDepth: Int
    /// The value tree holds a copy of every string and number, so this also bounds what parsing allocates beyond
    /// the document (32 MiB by default).
    public var maxBytes: Int
    public var maxStringBytes: Int
    public var maxNumberDigits: Int
    /// Values in the document, object keys included: what the value tree costs (about 30 bytes a number, 100 an
    /// object member) is bounded by this, not by the byte size.
    public var maxValues: Int

    public init(maxDepth: Int = 256, maxBytes: Int = 32 << 20, maxStringBytes: Int = 16 << 20, maxNumberDigits: Int = 4096,
                maxValues: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxStringBytes = maxStringBytes
        self.maxNumberDigits = maxNumberDigits
        self.maxValues = maxValues
    }

    public static let `default` = JSONLimits()
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259, strict): no comments, no trailing commas, no duplicate object keys,
    /// valid UTF-8 only, paired surrogate escapes only. Whitespace may surround the value; anything else after it
    /// is an error.
    public static func parse(_ text: String, limits: JSONLimits = .default) throws(CodecError) -> JSONValue {
        // Read in place (no copy of the text: a signed request file is 16 MiB of JSON).
        var text = text
        let result = text.withUTF8 { utf8 -> Result<JSONValue, CodecError> in
            do throws(CodecError) { return .success(try parse(utf8, limits: limits)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .default) throws(CodecError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONValue, CodecError> in
            do throws(CodecError) { return .success(try parse(buffer, limits: limits)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws(CodecError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw CodecError(.limitExceeded, format: "JSON", "document of \(bytes.count) bytes exceeds \(limits.maxBytes)")
        }
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }

    /// Parses one document as `parse` does and also returns the exact text of each member of the top-level object
    /// (empty when the document is no object): what a relay forwards without re-serialising, e.g. a JSON-RPC
    /// result whose spacing and key order must reach its reader unchanged.
    public static func parseKeepingMemberText(_ bytes: [UInt8], limits: JSONLimits = .default) throws(CodecError)
        -> (value: JSONValue, memberText: [String: String])
    {
        guard bytes.count <= limits.maxBytes else {
            throw CodecError(.limitExceeded, format: "JSON", "document of \(bytes.count) bytes exceeds \(limits.maxBytes)")
        }
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<(JSONValue, [String: Range<Int>]), CodecError> in
            var parser = JSONParser(bytes: buffer, limits: limits)
            parser.recordsMembers = true
            do throws(CodecError) { return .success((try parser.parseDocument(), parser.memberRanges)) } catch { return .failure(error) }
        }
        let (value, ranges) = try result.get()
        // The document is valid UTF-8 (checked by the parser), so each member's text is too.
        return (value, ranges.mapValues { String(decoding: bytes[$0], as: UTF8.self) })
    }

    /// Parses JSON Lines: one document per non-empty line. Errors name the line.
    public static func parseLines(_ text: String, limits: JSONLimits = .default) throws(CodecError) -> [JSONValue] {
        var values: [JSONValue] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if trimmed.isEmpty { continue }
            do {
                values.append(try parse(Array(line.utf8), limits: limits))
            } catch {
                throw CodecError(error.kind, format: "JSON", error.message, line: lineNumber, column: error.column,
                                 path: error.path)
            }
        }
        return values
    }
}

struct JSONParser {
    /// The document, borrowed for the parse.
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var index = 0
    var depth = 0
    var valueCount = 0
    /// Path components of the container being parsed, for error messages.
    var path: [String] = []
    /// With `recordsMembers`, the byte range of each top-level object member's value.
    var recordsMembers = false
    var memberRanges: [String: Range<Int>] = [:]

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func parseDocument() throws(CodecError) -> JSONValue {
        // JSON text is UTF-8 (RFC 8259 §8.1): checked once here, so strings copy non-ASCII bytes as they are.
        let invalid = UTF8Validation.firstInvalidByte(bytes)
        if invalid < bytes.count { throw error("invalid UTF-8 sequence", at: invalid) }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected content after the JSON value") }
        return value
    }

    private var pathText: String { "$" + path.joined() }

    private func error(_ message: String, at offset: Int? = nil, kind: CodecError.Kind = .malformed) -> CodecError {
        let at = min(offset ?? index, bytes.count)
        var line = 1, column = 1
        var i = 0
        while i < at {
            if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return CodecError(kind, format: "JSON", message, offset: at, line: line, column: column, path: pathText)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Counts one value or key against `maxValues`.
    private mutating func countValue() throws(CodecError) {
        valueCount += 1
        if valueCount > limits.maxValues { throw error("more than \(limits.maxValues) values", kind: .limitExceeded) }
    }

    private mutating func parseValue() throws(CodecError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        try countValue()
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "0x" + String(byte, radix: 16)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(CodecError) {
        let text = literal.utf8Start
        for i in 0..<literal.utf8CodeUnitCount {
            guard index + i < bytes.count, bytes[index + i] == text[i] else {
                throw error("invalid literal, expected '\(literal)'")
            }
        }
        index += literal.utf8CodeUnitCount
    }

    private mutating func enter() throws(CodecError) {
        depth += 1
        if depth > limits.maxDepth { throw error("nesting deeper than \(limits.maxDepth)", kind: .limitExceeded) }
    }

    private mutating func parseObject() throws(CodecError) -> JSONValue {
        try enter()
        index += 1
        var object = JSONObject()
        var seen = Set<ExactText>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(index < bytes.count ? "expected a string key" : "unexpected end of input in object")
            }
            let keyOffset = index
            try countValue()
            let key = try parseString()
            if !seen.insert(ExactText(key)).inserted { throw error("duplicate key \"\(key)\"", at: keyOffset) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            skipWhitespace()
            path.append("." + key)
            let valueStart = index
            let value = try parseValue()
            if recordsMembers, depth == 1 { memberRanges[key] = valueStart..<index }
            path.removeLast()
            object.appendNewKey(key, value)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}' in object")
        }
        depth -= 1
        return .object(object)
    }

    private mutating func parseArray() throws(CodecError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return .array(items) }
        while true {
            skipWhitespace()
            path.append("[\(items.count)]")
            items.append(try parseValue())
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']' in array")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseNumber() throws(CodecError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        guard isDigit(index) else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error("leading zeros are not allowed") }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error("expected a digit after the decimal point") }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { throw error("expected a digit in the exponent") }
            while isDigit(index) { index += 1 }
        }
        if index - start > limits.maxNumberDigits {
            throw error("number longer than \(limits.maxNumberDigits) characters", at: start, kind: .limitExceeded)
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func parseString() throws(CodecError) -> String {
        let start = index
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[index]
            if out.count > limits.maxStringBytes {
                throw error("string longer than \(limits.maxStringBytes) bytes", at: start, kind: .limitExceeded)
            }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired high surrogate escape") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired low surrogate escape")
                    }
                    // Surrogates were paired or refused above, so this is always a scalar.
                    guard let unicodeScalar = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    UTF8.encode(unicodeScalar) { out.append($0) }
                default:
                    throw error("invalid escape '\\\(describe(escape))'", at: index - 2)
                }
            case 0x00..<0x20:
                throw error("control character in string must be escaped")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(CodecError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for i in 0..<4 {
            let c = bytes[index + i]
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape", at: index + i)
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }
}

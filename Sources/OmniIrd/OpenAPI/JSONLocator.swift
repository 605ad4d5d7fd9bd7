/// A place inside a JSON document: object keys and array indexes from the root, printed as `$.paths["/x"].get`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    public static func + (path: JSONPath, key: String) -> JSONPath { path.appending(key) }
    public static func + (path: JSONPath, index: Int) -> JSONPath { path.appending(index) }

    /// `$.a.b[2]["/x/{y}"]`: plain keys with a dot, others quoted.
    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index): text += "[\(index)]"
            case .key(let key):
                let plain = !key.isEmpty && key.utf8.allSatisfy { byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                }
                text += plain ? "." + key : "[\"" + key.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"]"
            }
        }
        return text
    }

    /// The JSON Pointer of a local `$ref` (`#/components/schemas/Domain`) as a path; nil for anything else.
    public init?(pointer: String) {
        guard pointer.hasPrefix("#") else { return nil }
        let body = pointer.dropFirst()
        guard body.isEmpty || body.hasPrefix("/") else { return nil }
        components = body.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { token in
            let decoded = Self.percentDecoded(String(token)).replacing("~1", with: "/").replacing("~0", with: "~")
            return .key(decoded)
        }
    }

    /// JSON Pointers in URI fragments may percent-encode characters (`%7B` for `{`).
    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Finds where a value sits in the JSON text it was parsed from, so that a problem found after parsing (a bad
/// `$ref`, a missing field) is reported with a line and column as well as its path. It scans the text again on
/// demand, only when an error is reported.
public struct JSONLocator: Sendable {
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// 1-based line and column of the value at `path`, or of the deepest enclosing value found.
    public func position(of path: JSONPath) -> (line: Int, column: Int)? {
        var index = 0
        skipWhitespace(&index)
        for component in path.components {
            guard index < bytes.count else { break }
            switch component {
            case .key(let wanted):
                guard bytes[index] == UInt8(ascii: "{"), let found = member(wanted, from: index) else { return lineColumn(index) }
                index = found
            case .index(let wanted):
                guard bytes[index] == UInt8(ascii: "["), let found = element(wanted, from: index) else { return lineColumn(index) }
                index = found
            }
        }
        return lineColumn(index)
    }

    private func lineColumn(_ offset: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    private func skipWhitespace(_ index: inout Int) {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// The offset of the value of key `wanted` in the object starting at `start`.
    private func member(_ wanted: String, from start: Int) -> Int? {
        var index = start + 1
        while true {
            skipWhitespace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            guard let (key, end) = string(at: index) else { return nil }
            index = end
            skipWhitespace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace(&index)
            if key == wanted { return index }
            guard let after = skipValue(index) else { return nil }
            index = after
            skipWhitespace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    private func element(_ wanted: Int, from start: Int) -> Int? {
        var index = start + 1
        var count = 0
        while true {
            skipWhitespace(&index)
            guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { return nil }
            if count == wanted { return index }
            guard let after = skipValue(index) else { return nil }
            index = after
            skipWhitespace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            count += 1
        }
    }

    /// A string token's decoded text (the escapes keys use in practice) and the offset after it.
    private func string(at start: Int) -> (String, Int)? {
        var out: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (String(decoding: out, as: UTF8.self), index + 1) }
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                let escape = bytes[index + 1]
                switch escape {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    if index + 5 < bytes.count,
                       let value = UInt32(String(decoding: bytes[(index + 2)...(index + 5)], as: UTF8.self), radix: 16),
                       let scalar = Unicode.Scalar(value) {
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    }
                    index += 4
                default: out.append(escape)
                }
                index += 2
                continue
            }
            out.append(byte)
            index += 1
        }
        return nil
    }

    /// The offset just after the value starting at `start`.
    private func skipValue(_ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""): return string(at: start)?.1
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = string(at: index)?.1 else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
                index += 1
            }
            return index
        }
    }
}

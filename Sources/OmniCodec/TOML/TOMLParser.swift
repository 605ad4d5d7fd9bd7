/// Limits for reading untrusted TOML. Exceeding one is a `CodecError` of kind `.limitExceeded`.
public struct TOMLLimits: Sendable {
    /// Nesting of tables, arrays and inline tables (the root table is depth 0, a top-level table or array depth 1).
    public var maxDepth: Int
    public var maxBytes: Int
    /// Values and key parts together (every table is created by a key part): a table costs about 1 KiB while being
    /// built, so this, not the byte size, bounds memory.
    public var maxValues: Int

    public init(maxDepth: Int = 128, maxBytes: Int = 16 << 20, maxValues: Int = 1 << 16) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.maxValues = maxValues
    }

    public static let `default` = TOMLLimits()
}

extension TOMLTable {
    /// Parses a TOML 1.0.0 document. Every redefinition the specification forbids is an error, reported with
    /// line and column (1-based, columns in characters) and the key path involved.
    public static func parse(_ text: String, limits: TOMLLimits = .default) throws(CodecError) -> TOMLTable {
        var text = text
        let result = text.withUTF8 { utf8 -> Result<TOMLTable, CodecError> in
            do throws(CodecError) {
                var parser = try TOMLParser(utf8, limits: limits)
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses a TOML document given as bytes, which must be valid UTF-8.
    public static func parse(_ bytes: [UInt8], limits: TOMLLimits = .default) throws(CodecError) -> TOMLTable {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<TOMLTable, CodecError> in
            do throws(CodecError) {
                var parser = try TOMLParser(buffer, limits: limits)
                try parser.validateUTF8()
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses a TOML document given as (UTF-8) bytes like `parse(_:)`, and also says where each key, table header
    /// and array element is written, so that a reader of the table can report a bad value at its line.
    public static func parseWithPositions(_ bytes: [UInt8], limits: TOMLLimits = .default) throws(CodecError)
        -> (table: TOMLTable, positions: TOMLPositions) {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<(TOMLTable, TOMLPositions), CodecError> in
            do throws(CodecError) {
                var parser = try TOMLParser(buffer, limits: limits)
                parser.recordsPositions = true
                try parser.validateUTF8()
                let table = try parser.parseDocument()
                return .success((table, TOMLPositions(offsets: parser.recordedOffsets, in: buffer)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// One step of a path into a TOML document: a key of a table, or an element of an array (arrays of tables too).
public enum TOMLPathComponent: Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    public var description: String {
        switch self {
        case .key(let key): TOMLParser.keyText([key])
        case .index(let index): "[\(index)]"
        }
    }
}

/// Where the parts of a document are written (1-based line and column, columns in characters): a key/value pair at
/// its key, a `[table]` or `[[array]]` element at its header, an array element or inline table at its first
/// character. A path is listed at the first place it is written.
public struct TOMLPositions: Sendable, Equatable {
    public struct Position: Sendable, Equatable {
        public let line: Int
        public let column: Int
    }

    private var positions: [[TOMLPathComponent]: Position] = [:]

    init(offsets: [(path: [TOMLPathComponent], offset: Int)], in bytes: UnsafeBufferPointer<UInt8>) {
        // One pass over the bytes, in offset order, however many paths there are.
        let sorted = offsets.sorted { $0.offset < $1.offset }
        var line = 1, column = 1, at = 0
        for (path, offset) in sorted {
            while at < offset && at < bytes.count {
                if bytes[at] == 0x0A { line += 1; column = 1 } else if bytes[at] & 0xC0 != 0x80 { column += 1 }
                at += 1
            }
            if positions[path] == nil { positions[path] = Position(line: line, column: column) }
        }
    }

    /// Where the value at `path` is written, or nil for a path the document does not write.
    public func position(of path: [TOMLPathComponent]) -> Position? { positions[path] }

    /// The position of `path`, or of the nearest enclosing path the document writes.
    public func nearestPosition(of path: [TOMLPathComponent]) -> Position? {
        var path = path
        while true {
            if let found = positions[path] { return found }
            if path.isEmpty { return nil }
            path.removeLast()
        }
    }
}

// MARK: - Parse-time tree

/// Tables under construction are reference nodes so that insertions deep in the tree do not copy it; the tree
/// becomes `TOMLTable` values once the document is read. The flags carry TOML's redefinition rules.
final class TOMLTableNode {
    var keys: [String] = []
    var children: [ExactText: TOMLNode] = [:]
    let depth: Int
    /// Defined by `[header]` or as an `[[array]]` element: no second header, no dotted keys into it.
    var definedByHeader = false
    /// The section (0 = before the first header) whose dotted keys created or extended this table; it cannot get
    /// a header of its own, nor be extended by dotted keys of another section.
    var dottedSection: Int?

    init(depth: Int) { self.depth = depth }

    func add(_ key: String, _ node: TOMLNode) {
        keys.append(key)
        children[ExactText(key)] = node
    }

    var table: TOMLTable {
        var table = TOMLTable()
        for key in keys {
            switch children[ExactText(key)] {
            case .value(let value): table[key] = value
            case .table(let node): table[key] = .table(node.table)
            case .tables(let array): table[key] = .array(array.tables.map { .table($0.table) })
            case nil: continue
            }
        }
        return table
    }
}

final class TOMLArrayOfTablesNode {
    var tables: [TOMLTableNode]
    init(_ first: TOMLTableNode) { tables = [first] }
}

enum TOMLNode {
    /// A value, including static arrays and inline tables, which can never be extended.
    case value(TOMLValue)
    case table(TOMLTableNode)
    case tables(TOMLArrayOfTablesNode)
}

// MARK: - Parser

struct TOMLParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: TOMLLimits
    private var i = 0
    /// Index of the current `[header]` section; dotted-key rules depend on it.
    private var section = 0
    /// Set by `parseWithPositions`: each key, header and array element is noted with its path and offset.
    var recordsPositions = false
    private(set) var recordedOffsets: [(path: [TOMLPathComponent], offset: Int)] = []
    /// The path of the table or value being read (kept only while positions are recorded).
    private var currentPath: [TOMLPathComponent] = []

    private mutating func record(_ path: [TOMLPathComponent], at offset: Int) {
        if recordsPositions { recordedOffsets.append((path, offset)) }
    }
    private var valueCount = 0

    struct KeyPart {
        let name: String
        let offset: Int
    }

    private static let lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, tab: UInt8 = 0x09, space: UInt8 = 0x20
    private static let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")

    init(_ bytes: UnsafeBufferPointer<UInt8>, limits: TOMLLimits) throws(CodecError) {
        self.bytes = bytes
        self.limits = limits
        if bytes.count > limits.maxBytes {
            throw CodecError(.limitExceeded, format: "TOML", "document of \(bytes.count) bytes exceeds \(limits.maxBytes)",
                             offset: 0, line: 1, column: 1)
        }
    }

    /// Parses a key such as `a."b c".d` on its own (for lookups by dotted path).
    static func parseStandaloneKey(_ text: String) throws(CodecError) -> [String] {
        var text = text
        let result = text.withUTF8 { utf8 -> Result<[String], CodecError> in
            do throws(CodecError) {
                var parser = try TOMLParser(utf8, limits: .default)
                let key = try parser.parseKey()
                parser.skipSpaces()
                guard parser.i == utf8.count else { throw parser.error("unexpected characters after the key") }
                return .success(key.map(\.name))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Errors

    func error(_ message: String, at offset: Int? = nil, kind: CodecError.Kind = .malformed,
               path: [KeyPart]? = nil) -> CodecError {
        let at = min(offset ?? i, bytes.count)
        var line = 1, column = 1
        for k in 0..<at {
            if bytes[k] == TOMLParser.lf { line += 1; column = 1 } else if bytes[k] & 0xC0 != 0x80 { column += 1 }
        }
        return CodecError(kind, format: "TOML", message, offset: at, line: line, column: column,
                          path: path.map { TOMLParser.keyText($0.map(\.name)) })
    }

    /// A key path as TOML would write it: bare parts as they are, others quoted.
    static func keyText(_ parts: [String]) -> String {
        parts.map { part in
            let bare = !part.isEmpty && part.utf8.allSatisfy(isBareKeyByte)
            return bare ? part : JSONValue.string(part).serialized()
        }.joined(separator: ".")
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case TOMLParser.lf: return "newline"
        case TOMLParser.cr: return "carriage return"
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "U+" + String(repeating: "0", count: byte < 0x10 ? 3 : 2) + String(byte, radix: 16, uppercase: true)
        }
    }

    /// The character at `offset` for messages: ASCII by `describe`, anything else as itself.
    private func describeCharacter(at offset: Int) -> String {
        guard bytes[offset] >= 0x80 else { return describe(bytes[offset]) }
        let end = min(offset + 4, bytes.count)
        let character = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self).first
        return character.map { "'\($0)'" } ?? "byte 0x" + String(bytes[offset], radix: 16)
    }

    func validateUTF8() throws(CodecError) {
        let invalid = UTF8Validation.firstInvalidByte(bytes)
        if invalid < bytes.count { throw error("invalid UTF-8", at: invalid) }
    }

    // MARK: Document structure

    mutating func parseDocument() throws(CodecError) -> TOMLTable {
        let root = TOMLTableNode(depth: 0)
        var current = root
        while true {
            skipSpaces()
            guard i < bytes.count else { break }
            switch bytes[i] {
            case TOMLParser.lf, TOMLParser.cr:
                try consumeNewline()
                continue
            case UInt8(ascii: "#"):
                try skipComment()
                continue
            case UInt8(ascii: "["):
                current = try parseHeader(root: root)
            default:
                let saved = currentPath
                try parseKeyValue(into: current)
                currentPath = saved
            }
            try expectEndOfLine()
        }
        return root.table
    }

    mutating func skipSpaces() {
        while i < bytes.count, bytes[i] == TOMLParser.space || bytes[i] == TOMLParser.tab { i += 1 }
    }

    private mutating func consumeNewline() throws(CodecError) {
        if bytes[i] == TOMLParser.cr {
            guard i + 1 < bytes.count, bytes[i + 1] == TOMLParser.lf else { throw error("carriage return without line feed") }
            i += 2
        } else {
            i += 1
        }
    }

    /// Skips a comment up to (not including) the newline; control characters other than tab are refused.
    private mutating func skipComment() throws(CodecError) {
        i += 1
        while i < bytes.count {
            let byte = bytes[i]
            if byte == TOMLParser.lf { return }
            if byte == TOMLParser.cr, i + 1 < bytes.count, bytes[i + 1] == TOMLParser.lf { return }
            if (byte < 0x20 && byte != TOMLParser.tab) || byte == 0x7F {
                throw error("control character \(describe(byte)) in a comment")
            }
            i += 1
        }
    }

    private mutating func expectEndOfLine() throws(CodecError) {
        skipSpaces()
        guard i < bytes.count else { return }
        if bytes[i] == UInt8(ascii: "#") { try skipComment() }
        guard i < bytes.count else { return }
        guard bytes[i] == TOMLParser.lf || bytes[i] == TOMLParser.cr else {
            throw error("expected a newline or end of document, found \(describeCharacter(at: i))")
        }
        try consumeNewline()
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws(CodecError) {
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth)", at: offset, kind: .limitExceeded)
        }
    }

    private mutating func parseHeader(root: TOMLTableNode) throws(CodecError) -> TOMLTableNode {
        let start = i
        let isArray = i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "[")
        i += isArray ? 2 : 1
        skipSpaces()
        let key = try parseKey()
        skipSpaces()
        let closing = isArray ? "]]" : "]"
        for _ in 0..<(isArray ? 2 : 1) {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else {
                throw error("expected '\(closing)' after the table name")
            }
            i += 1
        }
        section += 1
        var table = root
        var path: [TOMLPathComponent] = []
        for (index, part) in key.dropLast().enumerated() {
            path.append(.key(part.name))
            switch table.children[ExactText(part.name)] {
            case nil:
                try checkDepth(table.depth + 1, at: part.offset)
                let child = TOMLTableNode(depth: table.depth + 1)
                table.add(part.name, .table(child))
                table = child
            case .table(let child):
                table = child
            case .tables(let array):
                guard let last = array.tables.last else { throw error("empty array of tables", at: part.offset) }
                path.append(.index(array.tables.count - 1))
                table = last
            case .value:
                throw error("cannot define a table under \(TOMLParser.keyText(key[...index].map(\.name))): it is a value",
                            at: part.offset, path: Array(key[...index]))
            }
        }
        guard let last = key.last else { throw error("expected a table name", at: start) }
        let existing = table.children[ExactText(last.name)]
        path.append(.key(last.name))
        if isArray {
            let element = TOMLTableNode(depth: table.depth + 1)
            try checkDepth(element.depth, at: last.offset)
            element.definedByHeader = true
            switch existing {
            case nil:
                table.add(last.name, .tables(TOMLArrayOfTablesNode(element)))
                path.append(.index(0))
            case .tables(let array):
                array.tables.append(element)
                path.append(.index(array.tables.count - 1))
            case .table: throw error("cannot define [[\(TOMLParser.keyText(key.map(\.name)))]]: it is already a table",
                                     at: start, path: key)
            case .value: throw error("cannot define [[\(TOMLParser.keyText(key.map(\.name)))]]: it is already a value",
                                     at: start, path: key)
            }
            record(path, at: start)
            currentPath = path
            return element
        }
        record(path, at: start)
        currentPath = path
        switch existing {
        case nil:
            let child = TOMLTableNode(depth: table.depth + 1)
            try checkDepth(child.depth, at: last.offset)
            child.definedByHeader = true
            table.add(last.name, .table(child))
            return child
        case .table(let child):
            let name = TOMLParser.keyText(key.map(\.name))
            if child.definedByHeader { throw error("table [\(name)] defined more than once", at: start, path: key) }
            if child.dottedSection != nil {
                throw error("table [\(name)] was already defined with dotted keys", at: start, path: key)
            }
            child.definedByHeader = true
            return child
        case .tables:
            throw error("cannot define [\(TOMLParser.keyText(key.map(\.name)))]: it is an array of tables", at: start, path: key)
        case .value:
            throw error("cannot define [\(TOMLParser.keyText(key.map(\.name)))]: it is already a value", at: start, path: key)
        }
    }

    private mutating func parseKeyValue(into table: TOMLTableNode) throws(CodecError) {
        let key = try parseKey()
        recordKey(key)
        skipSpaces()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else {
            throw error(i < bytes.count ? "expected '=' after key, found \(describeCharacter(at: i))" : "expected '=' after key")
        }
        i += 1
        skipSpaces()
        let value = try parseValue(depth: table.depth + key.count)
        try insert(value, at: key, into: table)
    }

    /// Notes where a (dotted) key and each of its prefixes is written, and enters its path for the value.
    private mutating func recordKey(_ key: [KeyPart]) {
        guard recordsPositions else { return }
        for part in key {
            currentPath.append(.key(part.name))
            record(currentPath, at: part.offset)
        }
    }

    /// Puts `value` at a dotted key below `table`, creating the intermediate tables dotted keys define.
    private func insert(_ value: TOMLValue, at key: [KeyPart], into root: TOMLTableNode) throws(CodecError) {
        var table = root
        for (index, part) in key.dropLast().enumerated() {
            let prefix = Array(key[...index])
            switch table.children[ExactText(part.name)] {
            case nil:
                try checkDepth(table.depth + 1, at: part.offset)
                let child = TOMLTableNode(depth: table.depth + 1)
                child.dottedSection = section
                table.add(part.name, .table(child))
                table = child
            case .table(let child):
                if child.definedByHeader {
                    throw error("cannot add to table \(TOMLParser.keyText(prefix.map(\.name))) with dotted keys: it has its own [header]",
                                at: part.offset, path: prefix)
                }
                if let earlier = child.dottedSection, earlier != section {
                    throw error("table \(TOMLParser.keyText(prefix.map(\.name))) was defined with dotted keys in another section",
                                at: part.offset, path: prefix)
                }
                child.dottedSection = section
                table = child
            case .tables:
                throw error("cannot add to array of tables \(TOMLParser.keyText(prefix.map(\.name))) with dotted keys",
                            at: part.offset, path: prefix)
            case .value(let existing):
                let what = existing.tableValue != nil ? "an inline table, which cannot be extended" : "a value"
                throw error("key \(TOMLParser.keyText(prefix.map(\.name))) is already \(what)", at: part.offset, path: prefix)
            }
        }
        guard let last = key.last else { return }
        if table.children[ExactText(last.name)] != nil {
            throw error("duplicate key \(TOMLParser.keyText(key.map(\.name)))", at: last.offset, path: key)
        }
        table.add(last.name, .value(value))
    }

    // MARK: Keys

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): return true
        default: return false
        }
    }

    mutating func parseKey() throws(CodecError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            parts.append(try parseSimpleKey())
            if parts.count > limits.maxDepth {
                throw error("key with more than \(limits.maxDepth) parts", kind: .limitExceeded)
            }
            skipSpaces()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ".") else { return parts }
            i += 1
            skipSpaces()
        }
    }

    /// Counts one value or key part against `maxValues`.
    private mutating func countValue() throws(CodecError) {
        valueCount += 1
        if valueCount > limits.maxValues {
            throw error("more than \(limits.maxValues) values and keys", kind: .limitExceeded)
        }
    }

    private mutating func parseSimpleKey() throws(CodecError) -> KeyPart {
        let start = i
        guard i < bytes.count else { throw error("expected a key, found end of document") }
        try countValue()
        switch bytes[i] {
        case TOMLParser.quote, TOMLParser.apostrophe:
            if i + 2 < bytes.count, bytes[i + 1] == bytes[i], bytes[i + 2] == bytes[i] {
                throw error("a multi-line string cannot be a key")
            }
            let name = bytes[i] == TOMLParser.quote ? try parseBasicString() : try parseLiteralString()
            return KeyPart(name: name, offset: start)
        default:
            while i < bytes.count, TOMLParser.isBareKeyByte(bytes[i]) { i += 1 }
            guard i > start else {
                throw error(i < bytes.count ? "expected a key, found \(describeCharacter(at: i))" : "expected a key")
            }
            return KeyPart(name: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self),
                           offset: start)
        }
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(CodecError) -> TOMLValue {
        guard i < bytes.count else { throw error("expected a value, found end of document") }
        try countValue()
        switch bytes[i] {
        case TOMLParser.quote: return .string(try parseBasicString())
        case TOMLParser.apostrophe: return .string(try parseLiteralString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "{"): return try parseInlineTable(depth: depth)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let dateTime = try parseDateTime() { return .dateTime(dateTime) }
            return try parseNumber()
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "i"), UInt8(ascii: "n"):
            return try parseNumber()
        case TOMLParser.lf, TOMLParser.cr: throw error("expected a value, found end of line")
        default: throw error("expected a value, found \(describeCharacter(at: i))")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(CodecError) {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count, (0..<count).allSatisfy({ bytes[i + $0] == word.utf8Start[$0] }) else {
            throw error("invalid value, expected '\(word)'")
        }
        i += count
    }

    /// Skips whitespace, newlines and comments between array elements.
    private mutating func skipArraySpace() throws(CodecError) {
        while i < bytes.count {
            switch bytes[i] {
            case TOMLParser.space, TOMLParser.tab: i += 1
            case TOMLParser.lf, TOMLParser.cr: try consumeNewline()
            case UInt8(ascii: "#"): try skipComment()
            default: return
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(CodecError) -> TOMLValue {
        let start = i
        try checkDepth(depth, at: start)
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipArraySpace()
            guard i < bytes.count else { throw error("unterminated array", at: start) }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            let saved = currentPath
            if recordsPositions {
                currentPath.append(.index(items.count))
                record(currentPath, at: i)
            }
            items.append(try parseValue(depth: depth + 1))
            currentPath = saved
            try skipArraySpace()
            guard i < bytes.count else { throw error("unterminated array", at: start) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']' in array, found \(describeCharacter(at: i))")
        }
    }

    private mutating func parseInlineTable(depth: Int) throws(CodecError) -> TOMLValue {
        let start = i
        try checkDepth(depth, at: start)
        i += 1
        let node = TOMLTableNode(depth: depth)
        skipSpaces()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .table(node.table) }
        while true {
            skipSpaces()
            guard i < bytes.count else { throw error("unterminated inline table", at: start) }
            switch bytes[i] {
            case UInt8(ascii: "}"): throw error("trailing comma in inline table")
            case TOMLParser.lf, TOMLParser.cr: throw error("newline in inline table")
            default: break
            }
            let key = try parseKey()
            let saved = currentPath
            recordKey(key)
            skipSpaces()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw error("expected '=' after key") }
            i += 1
            skipSpaces()
            let value = try parseValue(depth: depth + key.count)
            currentPath = saved
            try insert(value, at: key, into: node)
            skipSpaces()
            guard i < bytes.count else { throw error("unterminated inline table", at: start) }
            switch bytes[i] {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "}"): i += 1; return .table(node.table)
            case TOMLParser.lf, TOMLParser.cr: throw error("newline in inline table")
            default: throw error("expected ',' or '}' in inline table, found \(describeCharacter(at: i))")
            }
        }
    }

    // MARK: Strings

    private func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != TOMLParser.tab) || byte == 0x7F }

    private mutating func parseBasicString() throws(CodecError) -> String {
        let start = i
        if i + 2 < bytes.count, bytes[i + 1] == TOMLParser.quote, bytes[i + 2] == TOMLParser.quote {
            return try parseMultilineString(literal: false)
        }
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[i]
            switch byte {
            case TOMLParser.quote:
                i += 1
                return String(decoding: out, as: UTF8.self)
            case TOMLParser.backslash:
                try parseEscape(into: &out)
            case TOMLParser.lf, TOMLParser.cr:
                throw error("newline in a single-line string", at: start)
            default:
                if isControl(byte) { throw error("control character \(describe(byte)) must be escaped") }
                out.append(byte)
                i += 1
            }
        }
    }

    private mutating func parseLiteralString() throws(CodecError) -> String {
        let start = i
        if i + 2 < bytes.count, bytes[i + 1] == TOMLParser.apostrophe, bytes[i + 2] == TOMLParser.apostrophe {
            return try parseMultilineString(literal: true)
        }
        i += 1
        while true {
            guard i < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[i]
            if byte == TOMLParser.apostrophe {
                i += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<(i - 1)]), as: UTF8.self)
            }
            if byte == TOMLParser.lf || byte == TOMLParser.cr { throw error("newline in a single-line string", at: start) }
            if isControl(byte) { throw error("control character \(describe(byte)) in a literal string") }
            i += 1
        }
    }

    /// `"""…"""` or `'''…'''`: a newline right after the opening is dropped, CRLF reads as LF, up to two quotes
    /// may touch the closing delimiter, and (basic only) a backslash at a line end trims the following whitespace.
    private mutating func parseMultilineString(literal: Bool) throws(CodecError) -> String {
        let start = i
        let delimiter = bytes[i]
        i += 3
        if i < bytes.count, bytes[i] == TOMLParser.lf { i += 1 }
        else if i + 1 < bytes.count, bytes[i] == TOMLParser.cr, bytes[i + 1] == TOMLParser.lf { i += 2 }
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unterminated multi-line string", at: start) }
            let byte = bytes[i]
            switch byte {
            case delimiter:
                var run = 0
                while i + run < bytes.count, bytes[i + run] == delimiter { run += 1 }
                if run >= 3 {
                    if run > 5 { throw error("too many quotes at the end of a multi-line string", at: i + 5) }
                    out.append(contentsOf: repeatElement(delimiter, count: run - 3))
                    i += run
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(contentsOf: repeatElement(delimiter, count: run))
                i += run
            case TOMLParser.backslash where !literal:
                var j = i + 1
                while j < bytes.count, bytes[j] == TOMLParser.space || bytes[j] == TOMLParser.tab { j += 1 }
                if j < bytes.count, bytes[j] == TOMLParser.lf || bytes[j] == TOMLParser.cr {
                    // Line-ending backslash: drop the newline and all whitespace up to the next content.
                    i = j
                    while i < bytes.count {
                        let next = bytes[i]
                        if next == TOMLParser.space || next == TOMLParser.tab {
                            i += 1
                        } else if next == TOMLParser.lf || next == TOMLParser.cr {
                            try consumeNewline()
                        } else {
                            break
                        }
                    }
                } else {
                    try parseEscape(into: &out)
                }
            case TOMLParser.lf:
                out.append(TOMLParser.lf)
                i += 1
            case TOMLParser.cr:
                try consumeNewline()
                out.append(TOMLParser.lf)
            default:
                if isControl(byte) {
                    throw error("control character \(describe(byte)) in a multi-line string" + (literal ? "" : " must be escaped"))
                }
                out.append(byte)
                i += 1
            }
        }
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(CodecError) {
        let start = i
        guard i + 1 < bytes.count else { throw error("unterminated escape") }
        let letter = bytes[i + 1]
        i += 2
        switch letter {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case TOMLParser.quote: out.append(TOMLParser.quote)
        case TOMLParser.backslash: out.append(TOMLParser.backslash)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let digits = letter == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for k in 0..<digits {
                guard i + k < bytes.count, Hex.digitValues[Int(bytes[i + k])] <= 0x0F else {
                    throw error("\\\(Character(Unicode.Scalar(letter))) escape needs \(digits) hex digits", at: start)
                }
                value = value << 4 | UInt32(Hex.digitValues[Int(bytes[i + k])])
            }
            i += digits
            guard let scalar = Unicode.Scalar(value) else {
                throw error("escape \\\(Character(Unicode.Scalar(letter)))\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar value",
                            at: start)
            }
            out.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error("invalid escape sequence '\\\(letter < 0x80 ? String(Character(Unicode.Scalar(letter))) : "…")'",
                        at: start)
        }
    }

    // MARK: Numbers

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Digits of a radix with single underscores only between digits.
    private func validDigits(_ part: Slice<UnsafeBufferPointer<UInt8>>, _ isDigit: (UInt8) -> Bool) -> Bool {
        guard let first = part.first, let last = part.last, isDigit(first), isDigit(last) else { return false }
        var previousUnderscore = false
        for byte in part {
            if byte == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else if isDigit(byte) {
                previousUnderscore = false
            } else {
                return false
            }
        }
        return true
    }

    private static func radix(prefix: UInt8) -> Int? {
        switch prefix {
        case UInt8(ascii: "x"): return 16
        case UInt8(ascii: "o"): return 8
        case UInt8(ascii: "b"): return 2
        default: return nil
        }
    }

    private mutating func parseNumber() throws(CodecError) -> TOMLValue {
        let start = i
        // The number's extent: everything that could belong to one; the grammar is checked below.
        while i < bytes.count, TOMLParser.isBareKeyByte(bytes[i]) || bytes[i] == UInt8(ascii: "+")
            || bytes[i] == UInt8(ascii: ".") {
            i += 1
        }
        let token = bytes[start..<i]
        let text = String(decoding: UnsafeBufferPointer(rebasing: token), as: UTF8.self)
        guard !token.isEmpty else { throw error("expected a value", at: start) }
        // Built only when thrown: an error computes its line and column by scanning from the document's start,
        // which for every number of a long array made parsing quadratic.
        func invalid() -> CodecError { error("invalid number '\(text)'", at: start) }
        let signed = token.first == UInt8(ascii: "+") || token.first == UInt8(ascii: "-")
        let negative = token.first == UInt8(ascii: "-")
        let body = signed ? token.dropFirst() : token
        let bodyText = signed ? String(text.dropFirst()) : text
        if bodyText == "inf" { return .float(negative ? -.infinity : .infinity) }
        if bodyText == "nan" { return .float(negative ? -.nan : .nan) }

        // 0x, 0o, 0b: unsigned digits, leading zeros allowed.
        if body.count > 2, body.first == UInt8(ascii: "0"), let radix = TOMLParser.radix(prefix: body[body.startIndex + 1]) {
            guard !signed else { throw error("a sign is not allowed on hexadecimal, octal or binary integers", at: start) }
            let digits = body.dropFirst(2)
            guard validDigits(digits, { Int(Hex.digitValues[Int($0)]) < radix }) else { throw invalid() }
            var value: Int64 = 0
            for byte in digits where byte != UInt8(ascii: "_") {
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: Int64(radix))
                let (sum, overflow2) = shifted.addingReportingOverflow(Int64(Hex.digitValues[Int(byte)]))
                if overflow1 || overflow2 { throw error("integer '\(text)' is out of the 64-bit range", at: start) }
                value = sum
            }
            return .integer(value)
        }

        // Decimal integer or float: int-part [frac] [exp].
        var cursor = body.startIndex
        func scanDigits() -> Slice<UnsafeBufferPointer<UInt8>> {
            let from = cursor
            while cursor < body.endIndex, TOMLParser.isDigit(body[cursor]) || body[cursor] == UInt8(ascii: "_") {
                cursor += 1
            }
            return body[from..<cursor]
        }
        let integerPart = scanDigits()
        guard validDigits(integerPart, TOMLParser.isDigit) else { throw invalid() }
        if integerPart.count > 1, integerPart.first == UInt8(ascii: "0") {
            throw error("leading zeros are not allowed in '\(text)'", at: start)
        }
        var isFloat = false
        if cursor < body.endIndex, body[cursor] == UInt8(ascii: ".") {
            cursor += 1
            guard validDigits(scanDigits(), TOMLParser.isDigit) else { throw invalid() }
            isFloat = true
        }
        if cursor < body.endIndex, body[cursor] == UInt8(ascii: "e") || body[cursor] == UInt8(ascii: "E") {
            cursor += 1
            if cursor < body.endIndex, body[cursor] == UInt8(ascii: "+") || body[cursor] == UInt8(ascii: "-") { cursor += 1 }
            guard validDigits(scanDigits(), TOMLParser.isDigit) else { throw invalid() }
            isFloat = true
        }
        guard cursor == body.endIndex else { throw invalid() }
        let plain = text.filter { $0 != "_" }
        if isFloat {
            guard let value = Double(plain) else { throw invalid() }
            return .float(value)
        }
        guard let value = Int64(plain) else { throw error("integer '\(text)' is out of the 64-bit range", at: start) }
        return .integer(value)
    }

    // MARK: Dates and times

    private func digitsAt(_ offset: Int, count: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for k in 0..<count {
            let byte = bytes[offset + k]
            guard TOMLParser.isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private func byteAt(_ offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private func looksLikeTime(at offset: Int) -> Bool {
        digitsAt(offset, count: 2) != nil && byteAt(offset + 2) == UInt8(ascii: ":")
    }

    /// A date, date-time or time when the text at the cursor starts like one (`DDDD-` or `DD:`), else nil.
    private mutating func parseDateTime() throws(CodecError) -> TOMLDateTime? {
        let start = i
        let isDate = digitsAt(i, count: 4) != nil && byteAt(i + 4) == UInt8(ascii: "-")
        guard isDate || looksLikeTime(at: i) else { return nil }
        var year: Int?, month: Int?, day: Int?
        var time: (hour: Int, minute: Int, second: Int, fraction: String?)?
        var offsetMinutes: Int?
        if isDate {
            guard let y = digitsAt(i, count: 4), let m = digitsAt(i + 5, count: 2), byteAt(i + 7) == UInt8(ascii: "-"),
                  let d = digitsAt(i + 8, count: 2) else {
                throw error("invalid date, expected YYYY-MM-DD", at: start)
            }
            guard (1...12).contains(m), d >= 1, d <= TOMLParser.daysIn(month: m, year: y) else {
                throw error("invalid date \(fourDigits(y))-\(twoDigits(m))-\(twoDigits(d))", at: start)
            }
            (year, month, day) = (y, m, d)
            i += 10
            if let separator = byteAt(i), separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
                || (separator == TOMLParser.space && looksLikeTime(at: i + 1)) {
                i += 1
                time = try parseTime(start: start)
                if let marker = byteAt(i), marker == UInt8(ascii: "Z") || marker == UInt8(ascii: "z") {
                    offsetMinutes = 0
                    i += 1
                } else if let sign = byteAt(i), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                    guard let h = digitsAt(i + 1, count: 2), byteAt(i + 3) == UInt8(ascii: ":"),
                          let m = digitsAt(i + 4, count: 2), h <= 23, m <= 59 else {
                        throw error("invalid time offset, expected +HH:MM or -HH:MM", at: i)
                    }
                    offsetMinutes = (h * 60 + m) * (sign == UInt8(ascii: "-") ? -1 : 1)
                    i += 6
                }
            }
        } else {
            time = try parseTime(start: start)
        }
        let kind: TOMLDateTime.Kind
        switch (year != nil, time != nil, offsetMinutes != nil) {
        case (true, true, true): kind = .offsetDateTime
        case (true, true, false): kind = .localDateTime
        case (true, false, _): kind = .localDate
        default: kind = .localTime
        }
        return TOMLDateTime(kind: kind, text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self),
                            year: year, month: month, day: day, hour: time?.hour, minute: time?.minute,
                            second: time?.second, fraction: time?.fraction, offsetMinutes: offsetMinutes)
    }

    private mutating func parseTime(start: Int) throws(CodecError) -> (hour: Int, minute: Int, second: Int, fraction: String?) {
        guard let hour = digitsAt(i, count: 2), byteAt(i + 2) == UInt8(ascii: ":"), let minute = digitsAt(i + 3, count: 2),
              byteAt(i + 5) == UInt8(ascii: ":"), let second = digitsAt(i + 6, count: 2) else {
            throw error("invalid time, expected HH:MM:SS", at: i)
        }
        guard hour <= 23, minute <= 59, second <= 59 else {
            throw error("invalid time \(twoDigits(hour)):\(twoDigits(minute)):\(twoDigits(second))", at: i)
        }
        i += 8
        var fraction: String?
        if byteAt(i) == UInt8(ascii: ".") {
            let from = i + 1
            var end = from
            while let byte = byteAt(end), TOMLParser.isDigit(byte) { end += 1 }
            guard end > from else { throw error("expected digits after the decimal point in a time", at: i) }
            fraction = String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<end]), as: UTF8.self)
            i = end
        }
        return (hour, minute, second, fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

private func fourDigits(_ value: Int) -> String {
    let digits = "\(value)"
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

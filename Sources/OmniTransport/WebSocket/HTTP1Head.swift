/// Header fields of an HTTP/1.1 message in arrival order; lookups ignore the case of names.
public struct HTTPHeaderFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }
    public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { (name: $0.0, value: $0.1) } }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { HTTP1Head.equalsIgnoringCase($0.name, name) }?.value
    }

    public func values(_ name: String) -> [String] {
        fields.filter { HTTP1Head.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Comma-separated tokens across every occurrence of `name`, trimmed and lowercased (e.g. `Connection`).
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { HTTP1Head.listElements($0) }.map { $0.lowercased() }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every occurrence of `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) { fields.removeAll { HTTP1Head.equalsIgnoringCase($0.name, name) } }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaderFields, rhs: HTTPHeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// True if `name` is an RFC 9110 token and `value` has no CR, LF or NUL: guards against header injection.
    static func isValidField(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTP1Head.isTokenByte) && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }
}

/// The start line and header fields of an HTTP/1.x message, parsed strictly (CRLF line ends, no obs-fold, token
/// header names), as both the server (requests) and the WebSocket client (the upgrade response) need. Public so
/// the fuzz target reads heads exactly as both ends do.
public struct HTTP1Head: Sendable {
    /// The three parts of the start line: method, target, version for a request; version, status, reason for a
    /// response (the reason may be empty).
    public var startLine: (String, String, String)
    public var headers: HTTPHeaderFields

    public struct Violation: Error {
        public let message: String
        /// True when a count limit (not the syntax) was violated: servers answer 431 instead of 400.
        public var isLimit = false
    }

    /// The end (index just past CRLF CRLF) of a head starting at `start`, searching from `scanFrom`.
    public static func findEnd(in buffer: [UInt8], start: Int, scanFrom: Int) -> Int? {
        var index = max(start, scanFrom)
        while index + 3 < buffer.count {
            if buffer[index + 3] != 0x0A {
                index += buffer[index + 3] == 0x0D ? 1 : 4
                continue
            }
            if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D { return index + 4 }
            index += 1
        }
        return nil
    }

    /// Parses `bytes` (a complete head including the final empty line).
    public static func parse(_ bytes: ArraySlice<UInt8>, isRequest: Bool, maxHeaderCount: Int) throws(Violation) -> HTTP1Head {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A {
                guard index > lineStart, bytes[index - 1] == 0x0D else { throw Violation(message: "bare LF in the message head") }
                lines.append(bytes[lineStart..<(index - 1)])
                lineStart = index + 1
            } else if byte == 0 {
                throw Violation(message: "NUL byte in the message head")
            }
            index += 1
        }
        // The head ends with an empty line; drop it.
        guard lines.count >= 2, lines.last?.isEmpty == true else { throw Violation(message: "message head is not terminated") }
        lines.removeLast()
        guard lines.count - 1 <= maxHeaderCount else {
            throw Violation(message: "\(lines.count - 1) header fields exceed the limit of \(maxHeaderCount)", isLimit: true)
        }
        let startLine = try parseStartLine(lines[0], isRequest: isRequest)
        var headers = HTTPHeaderFields()
        for line in lines.dropFirst() {
            guard let first = line.first else { throw Violation(message: "empty header line") }
            if first == 0x20 || first == 0x09 { throw Violation(message: "obsolete line folding in header field") }
            guard let colon = line.firstIndex(of: 0x3A) else { throw Violation(message: "header line without a colon") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw Violation(message: "invalid header field name") }
            var valueStart = colon + 1, valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            if line[valueStart..<valueEnd].contains(0x0D) { throw Violation(message: "CR inside a header value") }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: line[valueStart..<valueEnd], as: UTF8.self))
        }
        return HTTP1Head(startLine: startLine, headers: headers)
    }

    private static func parseStartLine(_ line: ArraySlice<UInt8>, isRequest: Bool) throws(Violation) -> (String, String, String) {
        let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        if isRequest {
            guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
                  parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }), isVersion(parts[2])
            else { throw Violation(message: "malformed request line") }
            return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
                    String(decoding: parts[2], as: UTF8.self))
        }
        guard parts.count >= 2, isVersion(parts[0]), parts[1].count == 3, parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { throw Violation(message: "malformed status line") }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
                parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : "")
    }

    private static func isVersion(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = Array(bytes)
        return text.count == 8 && text.starts(with: Array("HTTP/".utf8)) && (0x30...0x39).contains(text[5])
            && text[6] == 0x2E && (0x30...0x39).contains(text[7])
    }

    /// RFC 9110 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }
}

extension HTTP1Head {
    /// ASCII case-insensitive comparison, as header names and tokens require.
    static func equalsIgnoringCase(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    /// Strips optional whitespace (SP, HTAB) at both ends. Byte by byte, as everything here: a Character
    /// comparison would not see a space or a comma that a combining mark follows (they form one grapheme).
    static func trimWhitespace(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// The elements of a comma-separated field value (RFC 9110 §5.6.1), each trimmed; empty elements are dropped
    /// unless `keepingEmpty` (a field that must not be a list, like Content-Length, refuses them).
    public static func listElements(_ value: some StringProtocol, keepingEmpty: Bool = false) -> [String] {
        let elements = value.utf8.split(separator: 0x2C, omittingEmptySubsequences: false)
            .map { trimWhitespace(String(decoding: $0, as: UTF8.self)) }
        return keepingEmpty ? elements : elements.filter { !$0.isEmpty }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}

/// The one error type of the codec layer (CBOR, JSON, TOML, hex, base32/64, LEB128).
///
/// Every decoding failure says which format failed, what was wrong and where: a byte offset for binary formats,
/// a line and column for text formats, and a field path (`$.a[3].b`) when the failure is inside a structure.
public struct CodecError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The input does not follow the format's grammar.
        case malformed
        /// A configured limit (depth, size, item count, work) was exceeded; the input may be valid but is refused.
        case limitExceeded = "limit_exceeded"
        /// Well-formed input that this codec deliberately does not accept (e.g. a non-canonical form in strict mode).
        case unsupported
    }

    public let kind: Kind
    /// "CBOR", "JSON", "TOML", "hex", "base32", "base64", "LEB128", …
    public let format: String
    public let message: String
    /// Byte offset into the input where the problem was found.
    public let offset: Int?
    /// 1-based line and column for text formats.
    public let line: Int?
    public let column: Int?
    /// Path of the enclosing element, e.g. `$.servers[2].name`.
    public let path: String?

    public init(_ kind: Kind, format: String, _ message: String, offset: Int? = nil,
                line: Int? = nil, column: Int? = nil, path: String? = nil) {
        self.kind = kind
        self.format = format
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
        self.path = path
    }

    public var description: String {
        var text = kind == .limitExceeded ? "\(format) limit exceeded" : "malformed \(format)"
        if kind == .unsupported { text = "unsupported \(format)" }
        var location: [String] = []
        if let line, let column { location.append("line \(line), column \(column)") }
        else if let offset { location.append("byte \(offset)") }
        if let path, !path.isEmpty { location.append("at \(path)") }
        if !location.isEmpty { text += " (" + location.joined(separator: ", ") + ")" }
        return text + ": " + message
    }
}

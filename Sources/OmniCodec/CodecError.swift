/// The one error type of the codec layer (CBOR, JSON, TOML, DER, PEM, hex, base32/64, LEB128).
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
    /// "CBOR", "JSON", "TOML", "DER", "PEM", "hex", "base32", "base64", "LEB128", …
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

    /// Where the problem is, for a layer above that states it once in its own message.
    public var location: InputLocation { InputLocation(offset: offset, line: line, column: column, path: path) }

    /// `malformed CBOR: <message>`: what went wrong without where, for a caller that reports `location` itself.
    public var summary: String { headline + ": " + message }

    private var headline: String {
        switch kind {
        case .malformed: "malformed \(format)"
        case .limitExceeded: "\(format) limit exceeded"
        case .unsupported: "unsupported \(format)"
        }
    }

    /// The same error with `label` (which input: `ARGS`, `--root-key`) in front of its message and, optionally, a
    /// hint after it; kind, format and location are kept.
    public func labelled(_ label: String, hint: String? = nil) -> CodecError {
        CodecError(kind, format: format, label + ": " + message + (hint.map { " (\($0))" } ?? ""), offset: offset,
                   line: line, column: column, path: path)
    }

    public var description: String {
        let place = location.description
        return headline + (place.isEmpty ? "" : " (\(place))") + ": " + message
    }
}

/// Where in an input something is, said one way in every layer's messages: `byte N` for binary input, or
/// `line L, column C` for text (never both), then the enclosing field path, elided in the middle when long.
public struct InputLocation: Equatable, Sendable, CustomStringConvertible {
    public var offset: Int?
    public var line: Int?
    public var column: Int?
    /// A field path (`$.a[3]`), a state-tree path or a file name.
    public var path: String?

    /// Paths longer than this many characters print with their middle elided (a 256-deep path would otherwise
    /// fill the screen with the part nobody reads).
    public static let maximumPathLength = 100

    public init(offset: Int? = nil, line: Int? = nil, column: Int? = nil, path: String? = nil) {
        self.offset = offset
        self.line = line
        self.column = column
        self.path = path
    }

    /// `byte 267, at $.a.b` or `line 2, column 5, at $.x`; empty when nothing is known.
    public var description: String {
        var parts: [String] = []
        if let line, let column { parts.append("line \(line), column \(column)") }
        else if let line { parts.append("line \(line)") }
        else if let offset { parts.append("byte \(offset)") }
        if let path, !path.isEmpty { parts.append("at " + InputLocation.elided(path)) }
        return parts.joined(separator: ", ")
    }

    /// `path` cut to at most `maximumLength` characters by replacing its middle with `…`, keeping the start and
    /// the end, preferably at component boundaries (`.`, `[`, `{`, `/`): `$.a.b…[3].c`.
    public static func elided(_ path: String, maximumLength: Int = maximumPathLength) -> String {
        let characters = Array(path)
        guard characters.count > maximumLength, maximumLength >= 8 else { return path }
        let headBudget = maximumLength * 2 / 5
        let tailBudget = maximumLength - headBudget - 1
        func isBoundary(_ index: Int) -> Bool { index < characters.count && ".[{/".contains(characters[index]) }
        // The head ends just before a component starts; the tail begins with one. Without a boundary in reach
        // (one very long key), the cut is made at the budget.
        let headEnd = (headBudget / 2...headBudget).reversed().first(where: isBoundary) ?? headBudget
        let tailStart = (characters.count - tailBudget...characters.count - tailBudget / 2).first(where: isBoundary)
            ?? characters.count - tailBudget
        return String(characters[..<headEnd]) + "…" + String(characters[tailStart...])
    }
}

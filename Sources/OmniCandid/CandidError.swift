import OmniCodec

/// The one error type of OmniCandid: binary decoding, encoding, text and `.did` parsing, type checking.
///
/// Every error says where, in one style: `byte N` for binary input, `line L, column C` for text (never both), and a
/// path through the value (`argument 1 . record field "owner" . vec[3]`) that uses field names whenever the
/// expected type knows them.
public struct CandidError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The bytes break the binary format (bad magic, truncated value, invalid type table, bad UTF-8, …).
        case malformed
        /// Well-formed data that does not have, or cannot be coerced to, the expected type.
        case typeMismatch = "type_mismatch"
        /// A decoding limit (work budget, depth, table or collection size) was reached; the input is refused.
        case limitExceeded = "limit_exceeded"
        /// Text or `.did` input that does not follow the grammar.
        case syntax
        /// Type definitions that are not valid: unknown or duplicate names, cyclic aliases, bad service members.
        case invalidType = "invalid_type"
        /// An `import` could not be resolved.
        case importFailed = "import_failed"
        /// Two fields or cases of one record or variant (or two of their labels' hashes), two methods of one service
        /// or two argument names of one function are the same.
        case duplicateLabel = "duplicate_label"
    }

    /// One step of the path from an argument list down to the failing value.
    public enum PathComponent: Equatable, Sendable, CustomStringConvertible {
        case argument(Int)
        case field(CandidLabel)
        case variantCase(CandidLabel)
        case element(Int)
        case optValue
        case method(String)

        public var description: String {
            switch self {
            // Arguments count from 1 in messages, as people say them ("argument 2 of transfer").
            case .argument(let index): return "argument \(index + 1)"
            case .field(let label): return "record field \(label.quotedDescription)"
            case .variantCase(let label): return "variant case \(label.quotedDescription)"
            case .element(let index): return "vec[\(index)]"
            case .optValue: return "opt"
            case .method(let name): return "method \(CandidLabel.quoted(name))"
            }
        }
    }

    public let kind: Kind
    public let message: String
    /// Byte offset into binary input.
    public var offset: Int?
    /// 1-based line and column for text input.
    public var line: Int?
    public var column: Int?
    /// Innermost component last; built cheaply while an error unwinds.
    var reversedPath: [PathComponent]
    /// The `.did` file (import path) the error was found in, when not the main input.
    public var file: String?
    /// A type mismatch that the opt coercion rules may turn into `null` (internal control flow of the decoder).
    var isCoercionFailure = false
    /// The type definition whose body the error is in, so a `.did` loader can point at its line and column.
    var definition: String?

    public init(_ kind: Kind, _ message: String, offset: Int? = nil, line: Int? = nil, column: Int? = nil,
                path: [PathComponent] = [], file: String? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
        self.reversedPath = path.reversed()
        self.file = file
    }

    /// Outermost component first.
    public var path: [PathComponent] { reversedPath.reversed() }

    /// `argument 1 . record field "owner" . vec[3]`, or empty when the error is not inside a value.
    public var pathDescription: String { path.map(\.description).joined(separator: " . ") }

    /// Adds an enclosing path component (called while unwinding, outermost last).
    func inside(_ component: PathComponent) -> CandidError {
        var copy = self
        copy.reversedPath.append(component)
        return copy
    }

    public var description: String {
        var location: [String] = []
        if let file { location.append(file) }
        if let line, let column { location.append("line \(line), column \(column)") }
        else if let offset { location.append("byte \(offset)") }
        if !reversedPath.isEmpty { location.append("at \(pathDescription)") }
        let head: String
        switch kind {
        case .malformed: head = "malformed Candid"
        case .typeMismatch: head = "Candid type mismatch"
        case .limitExceeded: head = "Candid limit exceeded"
        case .syntax: head = "Candid syntax error"
        case .invalidType: head = "invalid Candid type"
        case .importFailed: head = "Candid import failed"
        case .duplicateLabel: head = "duplicate Candid label"
        }
        return head + (location.isEmpty ? "" : " (" + location.joined(separator: ", ") + ")") + ": " + message
    }

    /// Attributes the error to the type definition it was found in, unless an inner definition already claimed it.
    func inDefinition(_ name: String?) -> CandidError {
        guard definition == nil, let name else { return self }
        var copy = self
        copy.definition = name
        return copy
    }

    /// Wraps a codec-layer failure (LEB128, …) found at a byte offset.
    init(_ codecError: CodecError) {
        let kind: Kind = codecError.kind == .limitExceeded ? .limitExceeded : .malformed
        self.init(kind, codecError.format + ": " + codecError.message, offset: codecError.offset)
    }
}

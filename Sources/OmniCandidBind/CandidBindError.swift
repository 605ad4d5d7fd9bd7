import OmniCandid

/// The one error type of OmniCandidBind: a manifest or interface that cannot be turned into Swift.
///
/// Every error says where: the manifest and the line (and column) of the entry at fault, and for a problem inside
/// an interface the `.did` error itself (file, line and column) or the type path (`type Account . record field
/// "owner"`).
public struct CandidBindError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The manifest cannot be read, is not TOML, or has an unknown key, a wrong value, an unknown method, an
        /// invalid canister id, a duplicate name or a path outside the package root.
        case manifest
        /// A `.did` file named by the manifest does not parse or check.
        case interface
        /// A type the generator cannot write as Swift.
        case unsupported
    }

    public let kind: Kind
    public let message: String
    /// The manifest as the user named it.
    public let file: String?
    public let line: Int?
    public let column: Int?
    /// Inside an interface: the type path to what is at fault.
    public let typePath: String?

    public init(_ kind: Kind, _ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil,
                typePath: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.typePath = typePath
    }

    public var description: String {
        var location: [String] = []
        if let file { location.append(file) }
        if let line { location.append(column.map { "line \(line), column \($0)" } ?? "line \(line)") }
        if let typePath { location.append("at " + typePath) }
        let head: String
        switch kind {
        case .manifest: head = "invalid bindings manifest"
        case .interface: head = "invalid Candid interface"
        case .unsupported: head = "unsupported Candid type"
        }
        return head + (location.isEmpty ? "" : " (" + location.joined(separator: ", ") + ")") + ": " + message
    }
}

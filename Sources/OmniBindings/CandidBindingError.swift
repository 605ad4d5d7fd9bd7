import OmniCandid
import OmniIC

/// The one error type of OmniBindings, the runtime of Swift code written by `omni candid bind`.
///
/// Encoding and decoding failures of the Candid layer stay `CandidError`s, and the network's and the verifier's stay
/// `TransportError`s and `ICError`s; this type covers what only the bindings know: a Candid value that does not fit
/// the Swift type it is converted to, and a call that did not end in a reply.
public struct CandidBindingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; the raw value is the stable name scripts and logs use.
    public enum Kind: String, Sendable {
        /// A Candid value of another shape than the Swift type it is converted to (the path says where).
        case typeMismatch = "type_mismatch"
        /// The canister rejected the call (`reject` holds the code, message and whether it is certified).
        case rejected
        /// The call completed, but its reply is no longer available.
        case noReply = "no_reply"
        /// The Candid interface embedded in the generated code does not parse (the code was edited by hand).
        case interface
    }

    public let kind: Kind
    /// What happened, without the location (see `description` for both).
    public let message: String
    /// The method called, when the error is about a call.
    public var method: String?
    /// The reject, for `.rejected`.
    public let reject: Reject?
    /// Outermost first: `result 1 . record field "owner" . vec[3]`.
    public var path: [String] { reversedPath.reversed() }
    private var reversedPath: [String] = []

    /// An error of `kind`; `reject` is given for `.rejected`.
    public init(_ kind: Kind, _ message: String, method: String? = nil, reject: Reject? = nil) {
        self.kind = kind
        self.message = message
        self.method = method
        self.reject = reject
    }

    /// The value is not of the Candid type `expected`.
    public static func mismatch(expected: String, found value: CandidValue) -> CandidBindingError {
        CandidBindingError(.typeMismatch, "expected \(expected), found \(CandidBindingError.describe(value))")
    }

    /// The same error one step further out (built while unwinding, innermost first).
    public func inside(_ component: String) -> CandidBindingError {
        var copy = self
        copy.reversedPath.append(component)
        return copy
    }

    public var description: String {
        var location: [String] = []
        if let method { location.append("method \(CandidLabel.quotedForMessage(method))") }
        if !reversedPath.isEmpty { location.append("at " + path.joined(separator: " . ")) }
        let head: String
        switch kind {
        case .typeMismatch: head = "Candid value does not fit the Swift type"
        case .rejected: head = "call rejected"
        case .noReply: head = "no reply"
        case .interface: head = "invalid embedded Candid interface"
        }
        return head + (location.isEmpty ? "" : " (" + location.joined(separator: ", ") + ")") + ": " + message
    }

    /// A value's Candid kind for messages: `nat64`, `record`, `variant`, …
    static func describe(_ value: CandidValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .nat: "nat"
        case .int: "int"
        case .nat8: "nat8"
        case .nat16: "nat16"
        case .nat32: "nat32"
        case .nat64: "nat64"
        case .int8: "int8"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .float32: "float32"
        case .float64: "float64"
        case .text: "text"
        case .reserved: "reserved"
        case .principal: "principal"
        case .opt: "opt"
        case .vec: "vec"
        case .blob: "blob"
        case .record: "record"
        case .variant(let field): "variant case \(field.label.quotedName)"
        case .function: "func reference"
        case .service: "service reference"
        }
    }
}

extension CandidLabel {
    /// `"name"` or the number, for messages.
    var quotedName: String { name.map { CandidLabel.quotedForMessage($0) } ?? String(id) }

    static func quotedForMessage(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}

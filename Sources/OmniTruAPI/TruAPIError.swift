import OmniCodec

/// The one error type of TrUAPI: what went wrong, in words a user can act on, and a `kind` the CLI maps to an exit
/// code. Byte-level decoding failures stay `CodecError` (offset and field path); this wraps them when a layer adds
/// what it was decoding.
public struct TruAPIError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A frame, payload or JSON description that cannot be read, or names no method (exit 3).
        case malformed
        /// The host answered with a Domain error, the method's own negative answer (exit 1).
        case domainError = "domain_error"
        /// The host answered with a framework error: Denied, Unsupported, MalformedFrame, HostFailure (exit 4).
        case callError = "call_error"
        /// The bridge refused the token (exit 6).
        case unauthorized
        /// The connection failed, closed or timed out (exit 5).
        case network
        /// A local setting is missing or inconsistent (exit 7).
        case configuration
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// A codec failure with what was being read in front; the offset and path stay in the text.
    public static func malformed(_ error: CodecError, _ what: String) -> TruAPIError {
        TruAPIError(.malformed, "\(what): \(error.description)")
    }
}

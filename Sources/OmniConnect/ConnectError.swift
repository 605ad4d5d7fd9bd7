import OmniCodec
import OmniCrypto
import OmniTransport

/// The one error type of Iroha Connect: what went wrong in words a user can act on, and a `kind` the CLI maps
/// to an exit code.
public struct ConnectError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Input that cannot be parsed: a frame, envelope, URI, key, sid or JSON description (exit 3).
        case malformed
        /// The peer broke the session rules: sequence gap, replayed or misdirected frame, ciphertext before keys,
        /// a second request in flight, an unexpected message (exit 1).
        case protocolViolation = "protocol_violation"
        /// An AEAD tag or a signature did not verify (tampered ciphertext, bad approval or result signature) (exit 1).
        case verificationFailed = "verification_failed"
        /// The wallet rejected the session or the request, or the relay terminated the session (exit 4).
        case rejected
        /// Torii/the relay refused a token (401/403) (exit 6).
        case unauthorized
        /// Torii/the relay answered an HTTP call with an unexpected status or body (exit 4).
        case remote
        /// No answer within the time allowed (exit 5).
        case timeout
        /// A local setting is missing or inconsistent (exit 7).
        case configuration
    }

    public let kind: Kind
    public let message: String
    /// The close or reject code that ended a session, when there was one.
    public let code: Int?

    public init(_ kind: Kind, _ message: String, code: Int? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
    }

    public var description: String { message }

    static func malformed(_ error: CodecError, _ what: String) -> ConnectError {
        ConnectError(.malformed, "\(what): \(error.description)")
    }

    static func crypto(_ error: CryptoError, _ what: String) -> ConnectError {
        switch error.kind {
        case .verificationFailed: ConnectError(.verificationFailed, "\(what): \(error.message)")
        case .invalidInput, .invalidKey: ConnectError(.malformed, "\(what): \(error.message)")
        case .library, .certificateInvalid: ConnectError(.configuration, "\(what): \(error.message)")
        }
    }
}

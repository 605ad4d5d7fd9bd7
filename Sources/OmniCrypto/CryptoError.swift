/// The one error type of the crypto layer.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A key, nonce, signature or other input has the wrong size or encoding.
        case invalidInput = "invalid_input"
        /// A key could not be parsed (bad DER/PEM/point) or is of the wrong type/curve.
        case invalidKey = "invalid_key"
        /// A signature did not verify, or an AEAD tag did not authenticate.
        case verificationFailed = "verification_failed"
        /// A certificate chain did not verify (reason in the message).
        case certificateInvalid = "certificate_invalid"
        /// The underlying C library reported an error (message carries its text).
        case library
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

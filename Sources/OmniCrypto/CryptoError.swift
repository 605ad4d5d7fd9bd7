import OmniCodec

/// The one error type of the crypto layer.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A key, nonce, signature or other input has the wrong size or encoding.
        case invalidInput = "invalid_input"
        /// A key could not be parsed (bad DER/PEM/point) or is of the wrong type/curve.
        case invalidKey = "invalid_key"
        /// A signature did not verify, or an AEAD tag did not authenticate.
        case verificationFailed = "verification_failed"
        /// A certificate could not be parsed, or a chain did not verify (`certificateFailure` says why).
        case certificateInvalid = "certificate_invalid"
        /// The underlying C library reported an error (message carries its text).
        case library
    }

    /// Why a certificate chain was rejected, for callers that map failures to their own codes.
    public enum CertificateFailure: Equatable, Sendable {
        /// A certificate's notAfter is before the verification time.
        case expired
        /// A certificate's notBefore is after the verification time.
        case notYetValid
        /// The chain does not end at one of the given roots (missing issuer, unknown self-signed root).
        case untrustedRoot
        /// A certificate's signature does not verify under its issuer's key.
        case badSignature
        /// Any other OpenSSL verification error; carries OpenSSL's reason text.
        case other(String)
    }

    public let kind: Kind
    public let message: String
    /// Set only for chain-verification failures (`kind == .certificateInvalid`).
    public let certificateFailure: CertificateFailure?

    public init(_ kind: Kind, _ message: String, certificateFailure: CertificateFailure? = nil) {
        self.kind = kind
        self.message = message
        self.certificateFailure = certificateFailure
    }

    public var description: String { message }
}

extension CryptoError {
    /// A DER or PEM failure while reading `what`, reported as `kind`.
    static func codec(_ error: CodecError, _ what: String, _ kind: Kind) -> CryptoError {
        CryptoError(kind, "\(what): \(error)")
    }
}

/// Runs `body`, which reads DER, turning a malformed encoding into a `kind` error about `what`.
func parsingDER<T>(_ what: String, _ kind: CryptoError.Kind, _ body: () throws(CodecError) -> T) throws(CryptoError) -> T {
    do { return try body() } catch { throw CryptoError.codec(error, what, kind) }
}

/// The one block with one of `labels` in `text` (`PEM.singleBlock`), a failure reported as `kind`.
func singlePEMBlock(_ text: String, labels: Set<String>, what: String, kind: CryptoError.Kind) throws(CryptoError) -> PEMBlock {
    do { return try PEM.singleBlock(in: text, labels: labels, what: what) } catch { throw CryptoError.codec(error, what, kind) }
}

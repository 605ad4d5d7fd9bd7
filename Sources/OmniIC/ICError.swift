import OmniBLS
import OmniCandid
import OmniCodec
import OmniCrypto
import OmniSystem

/// The one error type of OmniIC.
///
/// `kind` tells a caller what to do (the CLI maps it to an exit code); `reason` says, for a failed verification,
/// which check refused the data, in a form scripts can match on (`signature`, `range`, `time`, …).
public struct ICError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// Bytes or text that do not have the expected format (CBOR, hash tree, principal, PEM, JSON, hex), or
        /// that exceed a parser limit.
        case malformed
        /// Well-formed data that failed a security check; `reason` says which.
        case verificationFailed = "verification_failed"
        /// Local setup: unknown identity, no default identity, a name already taken, an expired session.
        case configuration
        /// The identity may not make this request: a delegated session whose targets do not include the canister
        /// the IC checks (see `DelegationTarget`).
        case unauthorized
        /// A value the caller chose is out of range (delegation lifetime, nonce length, too many targets).
        case invalidArgument = "invalid_argument"
        /// Recognised but not supported here (e.g. a WebAuthn sender key).
        case unsupported
        /// Reading or writing a local file failed.
        case storage
        /// A system library failed where it should not (e.g. OpenSSL refusing to sign with a valid key).
        case internalFailure = "internal_failure"
    }

    /// Which check refused the data (set when `kind == .verificationFailed`).
    public enum Reason: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A BLS certificate signature (of the certificate or of its subnet delegation) does not verify.
        case signature
        /// The subnet delegation is unusable: nested, missing the subnet key, for another subnet.
        case delegation
        /// The effective canister id is outside the subnet's certified canister ranges, or no ranges are certified.
        case range
        /// The certificate's `/time` (or a query signature's timestamp) is too far from the reference time.
        case time
        /// A path the verification needs is absent, pruned, or holds a value of the wrong form.
        case lookup
        /// A query response node signature is missing, from an unknown node, or does not verify.
        case nodeSignature = "node_signature"
        /// A sender delegation chain is invalid: bad signature, too long, a cycle, an unsupported link.
        case delegationChain = "delegation_chain"
        /// A sender delegation has expired.
        case expired
        /// The canister is not among a sender delegation's targets.
        case target

        public var description: String { rawValue }
    }

    public let kind: Kind
    public let reason: Reason?
    public let message: String
    /// Where the problem is: a state-tree path (`/subnet/<id>/public_key`), a field path, or a file.
    public let location: String?
    /// Byte offset in binary input, when known.
    public let offset: Int?
    /// 1-based line and column in text input, when known (then `offset` is not shown).
    public let line: Int?
    public let column: Int?

    public init(_ kind: Kind, _ message: String, reason: Reason? = nil, location: String? = nil, offset: Int? = nil,
                line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.message = message
        self.location = location
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// A failed verification with its reason.
    public static func verification(_ reason: Reason, _ message: String, location: String? = nil) -> ICError {
        ICError(.verificationFailed, message, reason: reason, location: location)
    }

    public var description: String {
        var text: String
        switch kind {
        case .malformed: text = "malformed input"
        case .verificationFailed: text = "verification failed (\(reason?.rawValue ?? "unknown"))"
        case .configuration: text = "configuration error"
        case .invalidArgument: text = "invalid argument"
        case .unauthorized: text = "not authorised"
        case .unsupported: text = "unsupported"
        case .storage: text = "storage error"
        case .internalFailure: text = "internal failure"
        }
        // Stated once, the way every layer states it: "(byte 12, at $.a)" or "(line 2, column 5, at $.a)".
        let place = InputLocation(offset: offset, line: line, column: column, path: location).description
        return text + (place.isEmpty ? "" : " (\(place))") + ": " + message
    }
}

// MARK: - Lifting the lower layers' errors

extension ICError {
    /// A codec failure while reading `what` (e.g. "certificate"). Its location moves to this error's fields, so
    /// the message says it once.
    static func codec(_ error: CodecError, _ what: String) -> ICError {
        ICError(.malformed, "\(what): \(error.summary)", location: error.path, offset: error.offset, line: error.line,
                column: error.column)
    }

    static func crypto(_ error: CryptoError, _ what: String) -> ICError {
        switch error.kind {
        case .invalidKey, .invalidInput: return ICError(.malformed, "\(what): \(error.message)")
        case .verificationFailed, .certificateInvalid: return .verification(.signature, "\(what): \(error.message)")
        case .library: return ICError(.internalFailure, "\(what): \(error.message)")
        }
    }

    static func candid(_ error: CandidError, _ what: String) -> ICError {
        ICError(.malformed, "\(what): \(error)")
    }

    /// The same error with `label` (which input) in front of its message and, when given, `location` (a file)
    /// as where it is; kind, reason and position in the input are kept.
    public func labelled(_ label: String, location: String? = nil) -> ICError {
        ICError(kind, label + ": " + message, reason: reason, location: location ?? self.location, offset: offset, line: line,
                column: column)
    }

    static func system(_ error: SystemError) -> ICError {
        ICError(.storage, error.message, location: error.path)
    }

    static func malformed(_ message: String, location: String? = nil, offset: Int? = nil) -> ICError {
        ICError(.malformed, message, location: location, offset: offset)
    }
}

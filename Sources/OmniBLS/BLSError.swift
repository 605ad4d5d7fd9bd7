/// The one error type of OmniBLS: an input that cannot be used as a BLS12-381 signature, public key, point or
/// hashing parameter. Verification refuses such inputs by throwing; a well-formed signature that does not match
/// is not an error but `BLSVerification.invalid`.
public struct BLSError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The byte string has the wrong length for its role.
        case wrongLength = "wrong_length"
        /// The compression flag (0x80 of the first byte) is clear: only compressed points are accepted.
        case notCompressed = "not_compressed"
        /// The infinity flag is set but the rest of the encoding is not all zero (the only valid form is c0 00…00).
        case badInfinityEncoding = "bad_infinity_encoding"
        /// A coordinate is not below the field modulus p (a point would have several encodings).
        case nonCanonical = "non_canonical"
        /// No point of the curve has this x coordinate.
        case notOnCurve = "not_on_curve"
        /// The point is on the curve but not in the prime-order subgroup.
        case notInSubgroup = "not_in_subgroup"
        /// The point at infinity where a public key or signature is required (IC policy, BLS KeyValidate).
        case identity = "identity"
        /// A DER-wrapped public key does not start with the IC BLS prefix.
        case badDERPrefix = "bad_der_prefix"
        /// A hashing parameter is out of range (e.g. expand_message_xmd output length).
        case invalidParameter = "invalid_parameter"
    }

    /// What the refused input was.
    public enum Subject: String, Sendable, CaseIterable {
        case signature
        case publicKey = "public_key"
        case g1Point = "g1_point"
        case g2Point = "g2_point"
        case fieldElement = "field_element"
        case parameter
    }

    public let kind: Kind
    public let subject: Subject
    /// Byte offset within the input of the part that is wrong (the flag byte, the non-canonical half), if known.
    public let offset: Int?
    /// Extra detail (expected and actual lengths, the parameter's name), empty if the kind says everything.
    public let detail: String

    public init(_ kind: Kind, _ subject: Subject, offset: Int? = nil, detail: String = "") {
        self.kind = kind
        self.subject = subject
        self.offset = offset
        self.detail = detail
    }

    /// One line, e.g. "signature not in subgroup" or "public key has wrong length (95 bytes, expected 96)".
    public var description: String {
        var text = "\(subject.phrase) \(kind.phrase)"
        if !detail.isEmpty { text += " (\(detail))" }
        if let offset { text += " at byte \(offset)" }
        return text
    }
}

extension BLSError.Kind {
    var phrase: String {
        switch self {
        case .wrongLength: "has wrong length"
        case .notCompressed: "is not in compressed form (compression flag clear)"
        case .badInfinityEncoding: "has a malformed infinity encoding"
        case .nonCanonical: "has a coordinate not below the field modulus"
        case .notOnCurve: "not on curve"
        case .notInSubgroup: "not in subgroup"
        case .identity: "is the point at infinity"
        case .badDERPrefix: "lacks the IC BLS DER prefix"
        case .invalidParameter: "is out of range"
        }
    }
}

extension BLSError.Subject {
    var phrase: String {
        switch self {
        case .signature: "signature"
        case .publicKey: "public key"
        case .g1Point: "G1 point"
        case .g2Point: "G2 point"
        case .fieldElement: "field element"
        case .parameter: "parameter"
        }
    }
}

/// The verdict on a well-formed signature.
public enum BLSVerification: Equatable, Sendable, CustomStringConvertible {
    case valid
    case invalid(BLSInvalidReason)

    public var isValid: Bool { self == .valid }

    public var description: String {
        switch self {
        case .valid: "valid"
        case .invalid(let reason): "invalid: \(reason)"
        }
    }
}

/// Why a well-formed signature was rejected.
public enum BLSInvalidReason: String, Equatable, Sendable, CustomStringConvertible {
    /// e(signature, g2) ≠ e(H(message), public key): wrong message, key or DST, or a forged signature.
    case pairingCheckFailed = "pairing_check_failed"

    public var description: String {
        switch self {
        case .pairingCheckFailed: "pairing check failed"
        }
    }
}

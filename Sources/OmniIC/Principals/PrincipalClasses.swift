import OmniCandid
import OmniCrypto

/// The classes of principals the IC interface specification defines (§ Principals), told apart by the last byte.
public enum PrincipalClass: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The empty blob, `aaaaa-aa`: the management canister.
    case management
    /// Ends in 0x01: canister and subnet ids allocated by the IC.
    case opaque
    /// SHA-224(DER public key) ‖ 0x02: a user or node identified by its key.
    case selfAuthenticating = "self_authenticating"
    /// SHA-224(|registrar| ‖ registrar ‖ nonce) ‖ 0x03: allocated by a registrar principal.
    case derived
    /// Exactly 0x04, `2vxsx-fae`: the caller of unsigned requests.
    case anonymous
    /// Ends in 0x7f: reserved, never used as a caller.
    case reserved
    /// Any other last byte: not assigned by the specification.
    case unassigned

    public var description: String { rawValue }
}

/// Why a principal's text is not valid, in a form tests and scripts can match.
public enum PrincipalTextProblem: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A character other than a–z, A–Z, 2–7 or '-'.
    case invalidCharacter = "invalid_character"
    /// Groups are not five characters separated by single dashes (the last group may be shorter).
    case dashPosition = "dash_position"
    /// Fewer than the four checksum bytes.
    case tooShort = "too_short"
    /// More than 29 bytes after the checksum.
    case tooLong = "too_long"
    /// The CRC-32 does not match the bytes.
    case checksum
    /// Decodes, but is not the canonical spelling of its bytes (e.g. non-zero padding bits).
    case notCanonical = "not_canonical"

    public var description: String {
        switch self {
        case .invalidCharacter: "contains a character outside the base32 alphabet"
        case .dashPosition: "has a dash in the wrong place (groups of five separated by '-')"
        case .tooShort: "is too short to hold the checksum"
        case .tooLong: "encodes more than 29 bytes"
        case .checksum: "has a wrong checksum"
        case .notCanonical: "is not in canonical form"
        }
    }
}

extension Principal {
    /// Which class of principal this is.
    public var principalClass: PrincipalClass {
        guard let last = bytes.last else { return .management }
        switch last {
        case 0x01: return .opaque
        case 0x02 where bytes.count == 29: return .selfAuthenticating
        case 0x03 where bytes.count == 29: return .derived
        case 0x04 where bytes.count == 1: return .anonymous
        case 0x7f: return .reserved
        default: return .unassigned
        }
    }

    /// The self-authenticating principal of a DER SubjectPublicKeyInfo: SHA-224(der) ‖ 0x02.
    public static func selfAuthenticating(publicKeyDER der: [UInt8]) -> Principal {
        exactly29(SHA224.hash(der) + [0x02])
    }

    /// A derived principal: SHA-224(|registrar| ‖ registrar ‖ nonce) ‖ 0x03.
    public static func derived(registrar: Principal, nonce: [UInt8]) -> Principal {
        exactly29(SHA224.hash([UInt8(registrar.bytes.count)] + registrar.bytes + nonce) + [0x03])
    }

    /// Whether this principal is the self-authenticating id of `der`.
    public func isSelfAuthenticating(for der: [UInt8]) -> Bool {
        self == Principal.selfAuthenticating(publicKeyDER: der)
    }

    /// The principal with these bytes; refuses more than 29 bytes.
    public static func fromBytes(_ bytes: [UInt8], what: String = "principal") throws(ICError) -> Principal {
        do {
            return try Principal(bytes: bytes)
        } catch {
            throw ICError.malformed("\(what) of \(bytes.count) bytes is longer than \(Principal.maxByteCount)")
        }
    }

    /// Parses the textual form as the specification allows: case-insensitively, with the checksum and dash
    /// positions checked. Errors say which rule the text breaks (see `textProblem(_:)`).
    public init(icText text: String) throws(ICError) {
        let lowered = String(text.lowercased())
        if let problem = Principal.textProblem(text) {
            throw ICError.malformed("principal \"\(Principal.quotedSample(text))\" \(problem)")
        }
        do {
            self = try Principal(text: lowered)
        } catch {
            throw ICError.malformed("principal \"\(Principal.quotedSample(text))\": \(error.message)")
        }
    }

    /// The first rule `text` breaks, or nil when it is a valid principal (in any letter case).
    public static func textProblem(_ text: String) -> PrincipalTextProblem? {
        var values: [UInt8] = []
        var groupLength = 0
        var sawDash = false
        for unit in text.utf8 {
            if unit == UInt8(ascii: "-") {
                // Every group before a dash is exactly five characters long.
                if groupLength != 5 { return .dashPosition }
                groupLength = 0
                sawDash = true
                continue
            }
            guard let value = base32Value(unit) else { return .invalidCharacter }
            values.append(value)
            groupLength += 1
            if groupLength > 5 { return .dashPosition }
        }
        if groupLength == 0 { return values.isEmpty && !sawDash ? .tooShort : .dashPosition }
        var decoded: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for value in values {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                decoded.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        if decoded.count < 4 { return .tooShort }
        if decoded.count - 4 > Principal.maxByteCount { return .tooLong }
        let body = Array(decoded[4...])
        let checksum = UInt32(decoded[0]) << 24 | UInt32(decoded[1]) << 16 | UInt32(decoded[2]) << 8 | UInt32(decoded[3])
        if checksum != CRC32.checksum(body) { return .checksum }
        guard let principal = try? Principal(bytes: body), principal.text == text.lowercased() else { return .notCanonical }
        return nil
    }

    /// Principals built from a 28-byte hash and a class byte are always 29 bytes long.
    static func exactly29(_ bytes: [UInt8]) -> Principal {
        guard let principal = try? Principal(bytes: bytes) else {
            preconditionFailure("a 29-byte principal is always valid")
        }
        return principal
    }

    /// Text echoed in an error, cut short so that hostile input cannot flood a terminal.
    static func quotedSample(_ text: String) -> String {
        let sample = text.unicodeScalars.prefix(80).map { scalar -> String in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7f ? String(scalar) : "?"
        }.joined()
        return text.unicodeScalars.count > 80 ? sample + "…" : sample
    }

    private static func base32Value(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return unit - UInt8(ascii: "a")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return unit - UInt8(ascii: "A")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return unit - UInt8(ascii: "2") + 26
        default: return nil
        }
    }
}

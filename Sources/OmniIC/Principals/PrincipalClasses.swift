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
}

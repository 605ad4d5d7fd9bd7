import OmniCodec
/// An Internet Computer principal: up to 29 opaque bytes, written as checksummed base32 text
/// (`aaaaa-aa`, `w7x7r-cok77-xa`, `2chl6-4hpzw-vqaaa-aaaaa-c`).
///
/// The text form is `base32(crc32(bytes) ‖ bytes)` in lowercase without padding, grouped in fives with dashes.
/// Parsing ignores letter case, as the IC interface specification and the reference implementation do
/// (`AAAAA-AA` is `aaaaa-aa`); everything else must be canonical. `text` always prints the lowercase form.
public struct Principal: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let maxByteCount = 29

    public let bytes: [UInt8]

    /// Fails when `bytes` is longer than 29 bytes.
    public init(bytes: [UInt8]) throws(CandidError) {
        guard bytes.count <= Principal.maxByteCount else {
            throw CandidError(.malformed, "principal of \(bytes.count) bytes exceeds \(Principal.maxByteCount)")
        }
        self.bytes = bytes
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The management canister, `aaaaa-aa`.
    public static let managementCanister = Principal(unchecked: [])
    /// The anonymous principal, `2vxsx-fae`.
    public static let anonymous = Principal(unchecked: [0x04])

    /// Parses the textual form in any letter case (checksummed, dashes every five characters).
    public init(text: String) throws(CandidError) {
        switch Principal.diagnose(text) {
        case .success(let principal):
            self = principal
        case .failure(let problem):
            throw CandidError(.syntax, "principal \(CandidLabel.quoted(text)) \(problem)")
        }
    }

    /// The first rule `text` breaks, ignoring letter case (the IC interface specification accepts either case), or
    /// nil when it is a valid principal.
    public static func textProblem(_ text: String) -> PrincipalTextProblem? {
        if case .failure(let problem) = diagnose(text) { return problem }
        return nil
    }

    /// Decodes the text (any letter case), checking the rules in the order a person would fix them: characters and
    /// dashes, length, checksum, canonical spelling.
    static func diagnose(_ text: String) -> Result<Principal, PrincipalTextProblem> {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var groupLength = 0
        var sawDash = false
        for unit in text.utf8 {
            if unit == UInt8(ascii: "-") {
                // Every group before a dash is exactly five characters long.
                if groupLength != 5 { return .failure(.dashPosition) }
                groupLength = 0
                sawDash = true
                continue
            }
            guard let value = base32Value(unit) else { return .failure(.invalidCharacter) }
            values.append(value)
            groupLength += 1
            if groupLength > 5 { return .failure(.dashPosition) }
        }
        if groupLength == 0 { return .failure(values.isEmpty && !sawDash ? .tooShort : .dashPosition) }
        // Unpack 5-bit groups; leftover bits are checked by the canonical-spelling comparison below.
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
        if decoded.count < 4 { return .failure(.tooShort) }
        if decoded.count - 4 > maxByteCount { return .failure(.tooLong) }
        let principal = Principal(unchecked: Array(decoded[4...]))
        let checksum = UInt32(decoded[0]) << 24 | UInt32(decoded[1]) << 16 | UInt32(decoded[2]) << 8 | UInt32(decoded[3])
        if checksum != CRC32.checksum(principal.bytes) { return .failure(.checksum) }
        if principal.text != text.lowercased() { return .failure(.notCanonical) }
        return .success(principal)
    }

    /// The canonical textual form.
    public var text: String {
        let data = CRC32.bigEndianBytes(bytes) + bytes
        var grouped: [UInt8] = []
        for (index, character) in Base32.encode(data).utf8.enumerated() {
            if index > 0 && index % 5 == 0 { grouped.append(UInt8(ascii: "-")) }
            grouped.append(character)
        }
        return String(decoding: grouped, as: UTF8.self)
    }

    public var description: String { text }

    public static func < (lhs: Principal, rhs: Principal) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    private static func base32Value(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return unit - UInt8(ascii: "a")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return unit - UInt8(ascii: "A")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return unit - UInt8(ascii: "2") + 26
        default: return nil
        }
    }
}

/// Why a text is not a principal.
public enum PrincipalTextProblem: String, Error, Sendable, CaseIterable, CustomStringConvertible {
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

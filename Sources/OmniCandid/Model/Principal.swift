/// An Internet Computer principal: up to 29 opaque bytes, written as checksummed base32 text
/// (`aaaaa-aa`, `w7x7r-cok77-xa`, `2chl6-4hpzw-vqaaa-aaaaa-c`).
///
/// The text form is `base32(crc32(bytes) ‖ bytes)` in lowercase without padding, grouped in fives with dashes.
/// Parsing accepts only that canonical form, so every principal has exactly one spelling.
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

    /// Parses the canonical textual form.
    public init(text: String) throws(CandidError) {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for unit in text.utf8 where unit != UInt8(ascii: "-") {
            guard let value = Principal.base32Value(unit) else {
                throw CandidError(.syntax, "principal \(CandidLabel.quoted(text)) contains a character outside base32")
            }
            values.append(value)
        }
        // Unpack 5-bit groups; leftover bits (< 8) must be zero padding.
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
        guard decoded.count >= 4, decoded.count - 4 <= Principal.maxByteCount else {
            throw CandidError(.syntax, "principal \(CandidLabel.quoted(text)) has an invalid length")
        }
        let principal = Principal(unchecked: Array(decoded[4...]))
        let checksum = UInt32(decoded[0]) << 24 | UInt32(decoded[1]) << 16 | UInt32(decoded[2]) << 8 | UInt32(decoded[3])
        guard checksum == CRC32.checksum(principal.bytes) else {
            throw CandidError(.syntax, "principal \(CandidLabel.quoted(text)) has a wrong checksum")
        }
        guard principal.text == text else {
            throw CandidError(.syntax, "principal \(CandidLabel.quoted(text)) is not in canonical form (expected \(principal.text))")
        }
        self = principal
    }

    /// The canonical textual form.
    public var text: String {
        let checksum = CRC32.checksum(bytes)
        let data = [UInt8(checksum >> 24), UInt8((checksum >> 16) & 0xFF), UInt8((checksum >> 8) & 0xFF),
                    UInt8(checksum & 0xFF)] + bytes
        var characters: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Principal.alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { characters.append(Principal.alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        var grouped: [UInt8] = []
        for (index, character) in characters.enumerated() {
            if index > 0 && index % 5 == 0 { grouped.append(UInt8(ascii: "-")) }
            grouped.append(character)
        }
        return String(decoding: grouped, as: UTF8.self)
    }

    public var description: String { text }

    public static func < (lhs: Principal, rhs: Principal) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    private static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    private static func base32Value(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return unit - UInt8(ascii: "a")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return unit - UInt8(ascii: "A")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return unit - UInt8(ascii: "2") + 26
        default: return nil
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected, as in zlib), used by the principal checksum.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

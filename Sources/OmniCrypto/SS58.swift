import OmniCodec

/// SS58 addresses (Substrate's "External Address Format"): base58 of prefix ‖ payload ‖ checksum, where the
/// checksum is the start of BLAKE2b-512("SS58PRE" ‖ prefix ‖ payload). Prefixes 0…63 take one byte, 64…16383
/// two; 46 and 47 are reserved. Payloads are account ids and public keys: 32 bytes (or 33, a compressed ECDSA
/// key) with a 2-byte checksum, as Substrate's `Ss58Codec` writes them. The short account-index forms, whose
/// checksum length the specification leaves to the total length, are not supported.
public enum SS58 {
    /// The generic Substrate prefix, the default of `encode`.
    public static let genericSubstratePrefix: UInt16 = 42
    public static let maximumPrefix: UInt16 = 16383
    public static let reservedPrefixes: Set<UInt16> = [46, 47]
    /// The longest address text accepted (a 33-byte payload with a 2-byte prefix is 51 characters).
    public static let maximumAddressLength = 64

    /// A decoded address.
    public struct Address: Hashable, Sendable {
        public let prefix: UInt16
        public let payload: [UInt8]

        public init(prefix: UInt16, payload: [UInt8]) {
            self.prefix = prefix
            self.payload = payload
        }
    }

    /// The address of `payload` (an account id or public key, usually 32 bytes) under `prefix`.
    public static func encode(_ payload: some Collection<UInt8>, prefix: UInt16 = genericSubstratePrefix) throws(CryptoError) -> String {
        try checkPrefix(prefix)
        guard payload.count == 32 || payload.count == 33 else {
            throw CryptoError(.invalidInput, "SS58 payload must be a 32-byte account id or key (or a 33-byte compressed key), got \(payload.count) bytes")
        }
        let body = prefixBytes(prefix) + Array(payload)
        return Base58.encode(body + checksum(body).prefix(checksumLength))
    }

    /// Decodes and checks an address. With `expectedPrefix`, an address for another network is refused.
    public static func decode(_ text: String, expectedPrefix: UInt16? = nil) throws(CryptoError) -> Address {
        guard !text.isEmpty else { throw CryptoError(.invalidInput, "SS58 address is empty") }
        guard text.utf8.count <= maximumAddressLength else {
            throw CryptoError(.invalidInput, "SS58 address is \(text.utf8.count) characters long, more than \(maximumAddressLength)")
        }
        let bytes = try Base58.decode(text, what: "SS58 address")
        guard let first = bytes.first else { throw CryptoError(.invalidInput, "SS58 address decodes to no bytes") }
        let prefix: UInt16
        let prefixCount: Int
        if first & 0b1100_0000 == 0 {
            prefix = UInt16(first)
            prefixCount = 1
        } else if first & 0b1100_0000 == 0b0100_0000 {
            guard bytes.count >= 2 else { throw CryptoError(.invalidInput, "SS58 address ends inside its 2-byte prefix") }
            let second = bytes[1]
            prefix = UInt16(first & 0b0011_1111) << 2 | UInt16(second >> 6) | UInt16(second & 0b0011_1111) << 8
            prefixCount = 2
            guard prefix >= 64 else {
                throw CryptoError(.invalidInput, "SS58 address spells prefix \(prefix) in two bytes; prefixes below 64 take one")
            }
        } else {
            throw CryptoError(.invalidInput, "SS58 address starts with byte 0x\(Hex.encode([first])), which is no prefix (prefixes above 16383 do not exist)")
        }
        try checkPrefix(prefix)
        let rest = bytes.count - prefixCount
        guard rest == 34 || rest == 35 else {
            throw CryptoError(.invalidInput,
                              "SS58 address holds \(rest) bytes after its prefix; expected a 32- or 33-byte payload and a 2-byte checksum")
        }
        let body = Array(bytes[0..<(bytes.count - checksumLength)])
        guard Array(bytes.suffix(checksumLength)) == Array(checksum(body).prefix(checksumLength)) else {
            throw CryptoError(.invalidInput, "SS58 address checksum does not match (a character is wrong)")
        }
        if let expectedPrefix, expectedPrefix != prefix {
            throw CryptoError(.invalidInput, "SS58 address is for network prefix \(prefix), expected \(expectedPrefix)")
        }
        return Address(prefix: prefix, payload: Array(body[prefixCount...]))
    }

    private static let checksumLength = 2

    private static func checkPrefix(_ prefix: UInt16) throws(CryptoError) {
        guard prefix <= maximumPrefix else {
            throw CryptoError(.invalidInput, "SS58 prefix must be 0…\(maximumPrefix), got \(prefix)")
        }
        guard !reservedPrefixes.contains(prefix) else {
            throw CryptoError(.invalidInput, "SS58 prefix \(prefix) is reserved")
        }
    }

    /// One byte below 64; otherwise the 14 bits spread over two bytes as the SS58 specification lays them out.
    static func prefixBytes(_ prefix: UInt16) -> [UInt8] {
        if prefix < 64 { return [UInt8(prefix)] }
        return [UInt8((prefix & 0b0000_0000_1111_1100) >> 2) | 0b0100_0000,
                UInt8(prefix >> 8) | UInt8(prefix & 0b0000_0000_0000_0011) << 6]
    }

    private static func checksum(_ body: [UInt8]) -> [UInt8] {
        BLAKE2b.hash512(Array("SS58PRE".utf8) + body)
    }
}

/// Base58 with the Bitcoin alphabet (leading zero bytes become leading '1's), for SS58. Public values only.
enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    private static let digitValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [UInt8] = []  // little-endian base-58 digits
        for byte in bytes[zeros...] {
            var carry = Int(byte)
            for index in digits.indices {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.append(UInt8(carry % 58))
                carry /= 58
            }
        }
        let text = [UInt8](repeating: alphabet[0], count: zeros) + digits.reversed().map { alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of `text`; a character outside the alphabet is reported with its position.
    static func decode(_ text: String, what: String) throws(CryptoError) -> [UInt8] {
        let characters = Array(text.utf8)
        let ones = characters.prefix { $0 == alphabet[0] }.count
        var bytes: [UInt8] = []  // little-endian
        for (offset, character) in characters.enumerated() {
            guard character < 128, digitValues[Int(character)] >= 0 else {
                throw CryptoError(.invalidInput, "\(what): character \(offset + 1) is not a base58 digit (0, O, I and l are not used)")
            }
            if offset < ones { continue }
            var carry = Int(digitValues[Int(character)])
            for index in bytes.indices {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xff)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xff))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: ones) + bytes.reversed()
    }
}

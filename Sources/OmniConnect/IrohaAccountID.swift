/// Iroha's I105 account literal for single-key Ed25519 accounts, which Gen B approvals carry as `account_id` and
/// from which Torii (and the app) take the key the approval signature is checked against.
///
/// Literal = sentinel (`sora`, `test`, `dev`, or `n<discriminant>`) ‖ base-105 digits of the canonical address
/// ‖ 6 checksum digits. Canonical address = header `0x02` (version 0, single key, normalisation 1) ‖ controller
/// tag `0x00` ‖ curve id `0x01` (Ed25519) ‖ key length `0x20` ‖ the 32-byte key. The checksum is bech32m
/// (hrp `snx`) over the address regrouped into 5-bit symbols. The 105 symbols are the 58 of Base58 followed by
/// the 47 half-width katakana of the iroha poem.
public struct IrohaAccountID: Hashable, Sendable, CustomStringConvertible {
    public static let soraDiscriminant: UInt16 = 0x02F1
    public static let testDiscriminant: UInt16 = 0x0171
    public static let devDiscriminant: UInt16 = 0x0000

    public let publicKey: [UInt8]
    public let discriminant: UInt16
    /// The canonical literal.
    public let literal: String

    public var description: String { literal }

    /// The account of an Ed25519 key under a chain discriminant (default: the `sora` sentinel).
    public init(ed25519PublicKey publicKey: [UInt8], discriminant: UInt16 = IrohaAccountID.soraDiscriminant) throws(ConnectError) {
        guard publicKey.count == 32 else { throw ConnectError(.malformed, "Ed25519 public key must be 32 bytes, got \(publicKey.count)") }
        self.publicKey = publicKey
        self.discriminant = discriminant
        literal = Self.encode(canonical: Self.canonicalAddress(publicKey), discriminant: discriminant)
    }

    /// Parses a literal; only the canonical spelling of a single-key Ed25519 account is accepted (Torii requires
    /// the literal to re-print identically, and refuses multisig accounts in approvals).
    public init(parsing text: String) throws(ConnectError) {
        guard text.utf8.count <= 256 else { throw ConnectError(.malformed, "account id is longer than 256 bytes") }
        guard let (discriminant, sentinel) = Self.sentinel(of: text) else {
            throw ConnectError(.malformed, "account id '\(text)' does not start with an I105 sentinel (sora, test, dev, n<number>)")
        }
        var digits: [UInt8] = []
        for character in text.dropFirst(sentinel.count) {
            guard let digit = Self.digitValues[character] else {
                throw ConnectError(.malformed, "account id has '\(character)', which is not an I105 symbol")
            }
            digits.append(digit)
        }
        guard digits.count > Self.checksumLength else { throw ConnectError(.malformed, "account id is too short") }
        let canonical = Self.fromBase105(Array(digits.dropLast(Self.checksumLength)))
        guard Array(digits.suffix(Self.checksumLength)) == Self.checksum(canonical) else {
            throw ConnectError(.malformed, "account id checksum does not match")
        }
        guard canonical.count >= 4, canonical[0] == 0x02 else {
            throw ConnectError(.malformed, "account id is not a version-0 single-key address")
        }
        guard canonical[1] == 0x00 else {
            throw ConnectError(.malformed, canonical[1] == 0x01 ? "multisig accounts cannot approve a Connect session" : "account id has an unknown controller tag")
        }
        guard canonical[2] == 0x01 else { throw ConnectError(.malformed, "account id uses curve \(canonical[2]); only Ed25519 (1) is supported") }
        guard canonical[3] == 32, canonical.count == 36 else { throw ConnectError(.malformed, "account id key is not 32 bytes") }
        let publicKey = Array(canonical[4...])
        let reprinted = Self.encode(canonical: canonical, discriminant: discriminant)
        guard reprinted == text else { throw ConnectError(.malformed, "account id is not in canonical form (expected \(reprinted))") }
        self.publicKey = publicKey
        self.discriminant = discriminant
        literal = text
    }

    // MARK: - Encoding

    private static let checksumLength = 6
    private static let base = 105
    private static let symbols: [Character] = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        + Array("ｲﾛﾊﾆﾎﾍﾄﾁﾘﾇﾙｦﾜｶﾖﾀﾚｿﾂﾈﾅﾗﾑｳヰﾉｵｸﾔﾏｹﾌｺｴﾃｱｻｷﾕﾒﾐｼヱﾋﾓｾｽ")
    private static let digitValues: [Character: UInt8] = Dictionary(
        uniqueKeysWithValues: symbols.enumerated().map { ($0.element, UInt8($0.offset)) })

    private static func canonicalAddress(_ publicKey: [UInt8]) -> [UInt8] { [0x02, 0x00, 0x01, 0x20] + publicKey }

    private static func sentinel(of text: String) -> (UInt16, String)? {
        for (discriminant, sentinel) in [(soraDiscriminant, "sora"), (testDiscriminant, "test"), (devDiscriminant, "dev")]
        where text.hasPrefix(sentinel) {
            return (discriminant, sentinel)
        }
        guard text.hasPrefix("n") else { return nil }
        let digits = text.dropFirst().prefix(5).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = UInt16(digits) else { return nil }
        return (value, "n" + digits)
    }

    private static func sentinelText(_ discriminant: UInt16) -> String {
        switch discriminant {
        case soraDiscriminant: "sora"
        case testDiscriminant: "test"
        case devDiscriminant: "dev"
        default: "n\(discriminant)"
        }
    }

    private static func encode(canonical: [UInt8], discriminant: UInt16) -> String {
        var text = sentinelText(discriminant)
        for digit in toBase105(canonical) + checksum(canonical) { text.append(symbols[Int(digit)]) }
        return text
    }

    /// Big-endian base conversion keeping leading zero bytes as leading zero digits (as Base58 does).
    private static func toBase105(_ bytes: [UInt8]) -> [UInt8] {
        let leadingZeros = bytes.prefix { $0 == 0 }.count
        var value = Array(bytes)
        var digits: [UInt8] = []
        var start = leadingZeros
        while start < value.count {
            var remainder = 0
            for index in start..<value.count {
                let accumulator = remainder << 8 | Int(value[index])
                value[index] = UInt8(accumulator / base)
                remainder = accumulator % base
            }
            digits.append(UInt8(remainder))
            while start < value.count, value[start] == 0 { start += 1 }
        }
        digits += [UInt8](repeating: 0, count: leadingZeros)
        if digits.isEmpty { digits = [0] }
        return digits.reversed()
    }

    private static func fromBase105(_ digits: [UInt8]) -> [UInt8] {
        let leadingZeros = digits.prefix { $0 == 0 }.count
        var value = digits
        var bytes: [UInt8] = []
        var start = leadingZeros
        while start < value.count {
            var remainder = 0
            for index in start..<value.count {
                let accumulator = remainder * base + Int(value[index])
                value[index] = UInt8(accumulator / 256)
                remainder = accumulator % 256
            }
            bytes.append(UInt8(remainder))
            while start < value.count, value[start] == 0 { start += 1 }
        }
        bytes += [UInt8](repeating: 0, count: leadingZeros)
        return bytes.reversed()
    }

    /// bech32m checksum (hrp "snx") over the canonical bytes regrouped into 5-bit symbols.
    private static func checksum(_ canonical: [UInt8]) -> [UInt8] {
        var values: [UInt8] = []
        let hrp = Array("snx".utf8)
        values += hrp.map { $0 >> 5 }
        values.append(0)
        values += hrp.map { $0 & 0x1f }
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in canonical {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                values.append(UInt8(accumulator >> UInt32(bits) & 0x1f))
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { values.append(UInt8(accumulator << UInt32(5 - bits) & 0x1f)) }
        values += [UInt8](repeating: 0, count: checksumLength)
        let generators: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for (index, generator) in generators.enumerated() where (top >> UInt32(index)) & 1 == 1 { check ^= generator }
        }
        check ^= 0x2bc8_30a3
        return (0..<checksumLength).map { UInt8(check >> UInt32(5 * (checksumLength - 1 - $0)) & 0x1f) }
    }
}

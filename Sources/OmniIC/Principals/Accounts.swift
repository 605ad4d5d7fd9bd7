import OmniCandid
import OmniCodec
import OmniCrypto

/// A 32-byte ledger subaccount. The all-zero subaccount is the owner's default account.
public struct Subaccount: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    public let bytes: [UInt8]

    /// The default subaccount (32 zero bytes).
    public static let `default` = Subaccount(unchecked: [UInt8](repeating: 0, count: byteCount))

    /// Exactly 32 bytes.
    public init(bytes: [UInt8]) throws(ICError) {
        guard bytes.count == Subaccount.byteCount else {
            throw ICError.malformed("a subaccount is 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Subaccount number `index`: the big-endian integer in the last eight bytes (the ledger convention).
    public init(index: UInt64) {
        var bytes = [UInt8](repeating: 0, count: Subaccount.byteCount)
        for position in 0..<8 { bytes[31 - position] = UInt8(truncatingIfNeeded: index >> (8 * UInt64(position))) }
        self.bytes = bytes
    }

    /// The subaccount that names a principal: its length byte, its bytes, zero padding (ic-js
    /// `SubAccount.fromPrincipal`).
    public init(principal: Principal) {
        var bytes = [UInt8(principal.bytes.count)] + principal.bytes
        bytes += [UInt8](repeating: 0, count: Subaccount.byteCount - bytes.count)
        self.bytes = bytes
    }

    /// Parses 64 hex digits.
    public init(hex: String) throws(ICError) {
        let decoded: [UInt8]
        do { decoded = try Hex.decode(hex, allowPrefix: true) } catch { throw ICError.codec(error, "subaccount") }
        try self.init(bytes: decoded)
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    public var isDefault: Bool { bytes.allSatisfy { $0 == 0 } }
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}

/// An ICP ledger account identifier: CRC32-BE(h) ‖ h with h = SHA-224(0x0A "account-id" ‖ owner ‖ subaccount).
public struct AccountIdentifier: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    /// The 32 bytes: checksum then hash.
    public let bytes: [UInt8]

    private static let domainSeparator: [UInt8] = [0x0A] + Array("account-id".utf8)

    public init(owner: Principal, subaccount: Subaccount = .default) {
        let hash = SHA224.hash(AccountIdentifier.domainSeparator + owner.bytes + subaccount.bytes)
        bytes = CRC32.bigEndianBytes(hash) + hash
    }

    /// 32 bytes whose checksum matches.
    public init(bytes: [UInt8]) throws(ICError) {
        guard bytes.count == AccountIdentifier.byteCount else {
            throw ICError.malformed("an account identifier is 32 bytes, got \(bytes.count)")
        }
        guard CRC32.bigEndianBytes(bytes[4...]) == Array(bytes[..<4]) else {
            throw ICError.malformed("account identifier \(Hex.encode(bytes)) has a wrong checksum")
        }
        self.bytes = bytes
    }

    /// 64 hex digits (either case) whose checksum matches.
    public init(hex: String) throws(ICError) {
        let decoded: [UInt8]
        do { decoded = try Hex.decode(hex) } catch { throw ICError.codec(error, "account identifier") }
        try self.init(bytes: decoded)
    }

    /// 64 lowercase hex digits, the form wallets and dfx print.
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}

/// An ICRC-1 account and its textual encoding (ICRC-1 `TextualEncoding.md`):
/// `<owner>` for the default subaccount, else `<owner>-<checksum>.<subaccount hex without leading zeros>` with
/// checksum = base32(CRC32-BE(owner ‖ subaccount)).
public struct ICRC1Account: Hashable, Sendable, CustomStringConvertible {
    public let owner: Principal
    /// nil means the default subaccount; a default subaccount given explicitly is kept as given.
    public let subaccount: Subaccount?

    public init(owner: Principal, subaccount: Subaccount? = nil) {
        self.owner = owner
        self.subaccount = subaccount
    }

    /// Decodes the canonical text, refusing every non-canonical spelling: a written default subaccount, leading
    /// zeros, a missing or wrong checksum, more than 64 hex digits.
    public init(text: String) throws(ICError) {
        guard let dot = text.firstIndex(of: ".") else {
            self.init(owner: try Principal(icText: text))
            return
        }
        let sample = Principal.quotedSample(text)
        let ownerAndChecksum = text[..<dot]
        let compressed = text[text.index(after: dot)...]
        guard let dash = ownerAndChecksum.lastIndex(of: "-") else {
            throw ICError.malformed("ICRC-1 account \"\(sample)\" has no checksum before the '.'")
        }
        let checksum = ownerAndChecksum[ownerAndChecksum.index(after: dash)...]
        if compressed.hasPrefix("0") {
            throw ICError.malformed("ICRC-1 account \"\(sample)\": leading zeros are not allowed in the subaccount")
        }
        guard compressed.utf8.count <= 64 else {
            throw ICError.malformed("ICRC-1 account \"\(sample)\": the subaccount has more than 64 hex digits")
        }
        let padded = String(repeating: "0", count: 64 - compressed.utf8.count) + compressed
        let subaccountBytes: [UInt8]
        do { subaccountBytes = try Hex.decode(padded) } catch {
            throw ICError.malformed("ICRC-1 account \"\(sample)\": the subaccount: \(error.summary)")
        }
        let subaccount = try Subaccount(bytes: subaccountBytes)
        if subaccount.isDefault {
            throw ICError.malformed("ICRC-1 account \"\(sample)\": the default subaccount must be omitted")
        }
        let owner = try Principal(icText: String(ownerAndChecksum[..<dash]))
        guard checksum == ICRC1Account.checksum(owner: owner, subaccount: subaccount) else {
            throw ICError.malformed("ICRC-1 account \"\(sample)\" has a wrong checksum")
        }
        self.init(owner: owner, subaccount: subaccount)
    }

    /// The canonical text.
    public var text: String {
        guard let subaccount, !subaccount.isDefault else { return owner.text }
        let hex = Hex.encode(subaccount.bytes)
        let compressed = hex.drop(while: { $0 == "0" })
        return owner.text + "-" + ICRC1Account.checksum(owner: owner, subaccount: subaccount) + "." + compressed
    }

    /// The ICP ledger account identifier of the same (owner, subaccount).
    public var accountIdentifier: AccountIdentifier {
        AccountIdentifier(owner: owner, subaccount: subaccount ?? .default)
    }

    public var description: String { text }

    static func checksum(owner: Principal, subaccount: Subaccount) -> String {
        Base32.encode(CRC32.bigEndianBytes(owner.bytes + subaccount.bytes), padded: false, uppercase: false)
    }
}

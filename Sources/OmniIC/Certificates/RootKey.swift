import OmniBLS
import OmniCandid
import OmniCodec

/// A BLS12-381 root of trust: the key that signs certificates directly or signs subnet delegations.
public struct ICRootKey: Sendable, Equatable, CustomStringConvertible {
    /// The 133-byte DER form (37-byte IC prefix + 96-byte compressed G2 point).
    public let der: [UInt8]
    let key: BLSPublicKey

    /// The IC mainnet root key, pinned in the binary. Provenance (origin, date, SHA-256) is recorded in
    /// `Vendor/SOURCES.md` next to `Vendor/ic/mainnet_root_key.der`; a test checks the three agree.
    public static let mainnetDER: [UInt8] = [
        0x30, 0x81, 0x82, 0x30, 0x1d, 0x06, 0x0d, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0xdc, 0x7c, 0x05, 0x03, 0x01,
        0x02, 0x01, 0x06, 0x0c, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0xdc, 0x7c, 0x05, 0x03, 0x02, 0x01, 0x03, 0x61,
        0x00, 0x81, 0x4c, 0x0e, 0x6e, 0xc7, 0x1f, 0xab, 0x58, 0x3b, 0x08, 0xbd, 0x81, 0x37, 0x3c, 0x25, 0x5c, 0x3c,
        0x37, 0x1b, 0x2e, 0x84, 0x86, 0x3c, 0x98, 0xa4, 0xf1, 0xe0, 0x8b, 0x74, 0x23, 0x5d, 0x14, 0xfb, 0x5d, 0x9c,
        0x0c, 0xd5, 0x46, 0xd9, 0x68, 0x5f, 0x91, 0x3a, 0x0c, 0x0b, 0x2c, 0xc5, 0x34, 0x15, 0x83, 0xbf, 0x4b, 0x43,
        0x92, 0xe4, 0x67, 0xdb, 0x96, 0xd6, 0x5b, 0x9b, 0xb4, 0xcb, 0x71, 0x71, 0x12, 0xf8, 0x47, 0x2e, 0x0d, 0x5a,
        0x4d, 0x14, 0x50, 0x5f, 0xfd, 0x74, 0x84, 0xb0, 0x12, 0x91, 0x09, 0x1c, 0x5f, 0x87, 0xb9, 0x88, 0x83, 0x46,
        0x3f, 0x98, 0x09, 0x1a, 0x0b, 0xaa, 0xae,
    ]

    /// The mainnet root key, decoded once (decompression, subgroup check and pairing precomputation).
    public static let mainnet: ICRootKey = {
        guard let key = try? ICRootKey(der: mainnetDER) else { preconditionFailure("the pinned mainnet root key decodes") }
        return key
    }()

    /// A root key from its 133-byte DER form (what `/api/v2/status` returns and `--root-key` takes).
    public init(der: [UInt8]) throws(ICError) {
        do {
            key = try BLSPublicKey(der: der)
        } catch {
            throw ICError.malformed("root key: \(error)")
        }
        self.der = der
    }

    /// A root key from 266 hex digits of DER or 192 hex digits of the raw compressed point.
    public init(hex: String) throws(ICError) {
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex.trimmingWhitespaceAndNewlines(), allowPrefix: true) } catch {
            throw ICError.codec(error, "root key")
        }
        if bytes.count == BLS.publicKeyLength {
            try self.init(der: BLS.icPublicKeyDERPrefix + bytes)
        } else {
            try self.init(der: bytes)
        }
    }

    /// Whether this is the pinned mainnet key.
    public var isMainnet: Bool { der == ICRootKey.mainnetDER }

    /// The id of the subnet this key belongs to (the NNS subnet for the mainnet key): selfauth(DER).
    public var subnetID: Principal { Principal.selfAuthenticating(publicKeyDER: der) }

    public var description: String { isMainnet ? "mainnet root key" : "root key \(Hex.encode(der.suffix(BLS.publicKeyLength)))" }

    public static func == (lhs: ICRootKey, rhs: ICRootKey) -> Bool { lhs.der == rhs.der }
}

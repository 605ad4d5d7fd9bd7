import OmniBLS
import OmniCandid
import OmniCodec

/// Limits for reading untrusted certificates.
public struct CertificateLimits: Sendable {
    /// Size of the whole certificate (including a delegation certificate).
    public var maxBytes: Int
    /// CBOR nesting (each hash-tree node is one level).
    public var maxDepth: Int
    /// CBOR data items in one certificate. The CBOR value and the hash tree built from it cost about 90 bytes
    /// an item together; real certificates have a few thousand.
    public var maxItems: Int

    public init(maxBytes: Int = 10 << 20, maxDepth: Int = 192, maxItems: Int = 1 << 18) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    public static let `default` = CertificateLimits()
}

/// A certificate as the IC returns it (interface spec § Certification):
/// `55799({tree, signature: bytes(48), ?delegation: {subnet_id, certificate}})`.
///
/// Parsing checks the form only; `verify(scope:rootKey:freshness:)` checks everything else.
public final class ICCertificate: Sendable {
    public let tree: HashTree
    /// The BLS signature over `0x0D "ic-state-root" ‖ reconstruct(tree)`.
    public let signature: [UInt8]
    public let delegation: SubnetDelegation?
    /// The bytes this certificate was read from.
    public let encoded: [UInt8]

    /// A subnet delegation: the root (NNS) subnet's certificate for the subnet that signed this one.
    public struct SubnetDelegation: Sendable {
        public let subnetID: Principal
        /// The delegation certificate; a delegation inside it is recorded, not followed (`hasNestedDelegation`).
        public let certificate: ICCertificate
        /// Whether the delegation certificate carries a delegation of its own (never valid).
        public var hasNestedDelegation: Bool { certificate.nestedDelegationPresent || certificate.delegation != nil }
    }

    /// Set when a delegation's own delegation field was present but deliberately not parsed.
    let nestedDelegationPresent: Bool

    /// Reads a certificate (self-describe tag optional).
    public convenience init(decoding bytes: [UInt8], limits: CertificateLimits = .default) throws(ICError) {
        try self.init(decoding: bytes, limits: limits, followDelegation: true)
    }

    private init(decoding bytes: [UInt8], limits: CertificateLimits, followDelegation: Bool) throws(ICError) {
        let what = followDelegation ? "certificate" : "delegation certificate"
        let value = try ICCBOR.decode(bytes, what: what, maxBytes: limits.maxBytes, maxDepth: limits.maxDepth,
                                      maxItems: limits.maxItems)
        let fields = try CBORFields(value, what: what)
        tree = try HashTree(cbor: try fields.required("tree"))
        signature = try fields.bytes("signature")
        encoded = bytes
        if let delegationValue = fields.optionalNonNull("delegation") {
            if followDelegation {
                let delegationFields = try CBORFields(delegationValue, what: "\(what).delegation")
                let subnet = try Principal.fromBytes(try delegationFields.bytes("subnet_id"), what: "delegation.subnet_id")
                let inner = try ICCertificate(decoding: try delegationFields.bytes("certificate"), limits: limits,
                                            followDelegation: false)
                delegation = SubnetDelegation(subnetID: subnet, certificate: inner)
                nestedDelegationPresent = false
            } else {
                // Only one level is ever valid; deeper levels are refused at verification, unread.
                delegation = nil
                nestedDelegationPresent = true
            }
        } else {
            delegation = nil
            nestedDelegationPresent = false
        }
    }

    /// `reconstruct(tree)`.
    public var rootHash: [UInt8] { tree.digest }

    /// The message the BLS signature covers: `0x0D "ic-state-root" ‖ root hash` (46 bytes).
    public var signedMessage: [UInt8] { DomainSeparator.stateRoot + rootHash }

    /// `/time` as certified (nanoseconds since the epoch); the lookup must be Found and hold a LEB128 nat.
    public func certifiedTime() throws(ICError) -> UInt64 {
        guard case .found(let value) = tree.lookup(.time) else {
            throw ICError.verification(.lookup, "the certificate has no /time", location: "/time")
        }
        return try LEB128Value.natural(value, what: "/time")
    }
}

/// Decoding of the LEB128 naturals the state tree stores (`/time`, `reject_code`).
enum LEB128Value {
    static func natural(_ bytes: [UInt8], what: String) throws(ICError) -> UInt64 {
        var offset = 0
        let value: UInt64
        do {
            value = try LEB128.decodeUInt64(bytes, at: &offset)
        } catch {
            throw ICError.malformed("the value is not a LEB128 natural below 2^64: \(error.message)", location: what)
        }
        guard offset == bytes.count else {
            throw ICError.malformed("the value has \(bytes.count - offset) byte(s) after its LEB128 natural", location: what)
        }
        return value
    }
}

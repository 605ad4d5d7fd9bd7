import OmniCodec

/// The body of `GET /api/v2/status`. Its `root_key` is trustworthy only from a local development replica the
/// user runs; mainnet's key is pinned (`ICRootKey.mainnet`) and never taken from here.
public struct ReplicaStatus: Sendable, Equatable {
    public let apiVersion: String?
    public let implementationVersion: String?
    public let healthStatus: String?
    public let certifiedHeight: UInt64?
    /// DER of the replica's root key, when it reports one.
    public let rootKey: [UInt8]?

    public init(decoding body: [UInt8], maxBytes: Int = 1 << 20) throws(ICError) {
        let value = try ICCBOR.decode(body, what: "status response", maxBytes: maxBytes, maxDepth: 8)
        let fields = try CBORFields(value, what: "status response")
        apiVersion = try fields.optionalText("ic_api_version")
        implementationVersion = try fields.optionalText("impl_version")
        healthStatus = try fields.optionalText("replica_health_status")
        certifiedHeight = fields.optionalNonNull("certified_height")?.uint
        rootKey = try fields.optionalBytes("root_key")
    }
}

/// What a replica's self-reported root key (`GET /api/v2/status`) is worth: the status is not authenticated, so
/// the key is only as good as what it is compared with. Commands print it with this label, never bare.
public enum ReportedRootKey: String, Sendable, CaseIterable, CustomStringConvertible {
    /// It is the mainnet key pinned in omni.
    case pinnedMainnet = "pinned_mainnet"
    /// It is the root key the user chose to trust (`--root-key`).
    case matchesTrusted = "matches_trusted"
    /// It differs from the key omni verifies this network with (the pinned mainnet key, or `--root-key`): this
    /// replica's certificates would fail verification.
    case mismatch
    /// Nothing to compare it with: the replica's word only. Trust it (`--root-key`) only for a replica you run.
    case unverified

    /// How `der` relates to the trust omni has for `network`: `trusted` is the root key the user gave, if any.
    public init(der: [UInt8], network: ICNetwork, trusted: ICRootKey? = nil) {
        if let trusted {
            self = der == trusted.der ? (trusted.isMainnet ? .pinnedMainnet : .matchesTrusted) : .mismatch
        } else if der == ICRootKey.mainnetDER {
            self = .pinnedMainnet
        } else if network.isMainnet {
            self = .mismatch
        } else {
            self = .unverified
        }
    }

    /// Whether the key is one omni already trusts (pinned, or given by the user).
    public var isTrusted: Bool { self == .pinnedMainnet || self == .matchesTrusted }

    /// One line for people, e.g. "unverified: reported by the replica itself, not authenticated".
    public var description: String {
        switch self {
        case .pinnedMainnet: "the mainnet key pinned in omni"
        case .matchesTrusted: "the root key given with --root-key"
        case .mismatch: "MISMATCH: not the key this network is verified with; its certificates will not verify"
        case .unverified: "unverified: reported by the replica itself, not authenticated (trust it only for a replica you run)"
        }
    }
}

extension ReplicaStatus {
    /// The label for the reported root key (nil when the replica reports none).
    public func rootKeyTrust(network: ICNetwork, trusted: ICRootKey? = nil) -> ReportedRootKey? {
        rootKey.map { ReportedRootKey(der: $0, network: network, trusted: trusted) }
    }
}

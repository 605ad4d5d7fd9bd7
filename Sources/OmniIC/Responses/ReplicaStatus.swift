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

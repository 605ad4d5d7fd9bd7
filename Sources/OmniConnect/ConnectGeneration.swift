import OmniCodec
import OmniCrypto

/// The two incompatible wire generations of Iroha Connect. Everything that differs between them is in this file:
/// the four primitive encoders (fixed byte arrays, signature bytes, algorithm tags, constraints), the envelope
/// schema hash, the sid input and the approval preimage — plus the two relay checks only Gen B Torii makes.
public enum ConnectGeneration: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Iroha 3 as of March 2026: sid over the chain id, FNV-1a schema hashes, per-element byte arrays.
    case genA = "gen-a"
    /// Current upstream (the default): sid over the network id, relay and management tokens, approvals
    /// checked by Torii, SHA-256 schema hashes, packed byte arrays.
    case genB = "gen-b"

    public var description: String { rawValue }

    static let envelopeTypeName = "iroha_torii_shared::connect::EnvelopeV1"

    // MARK: - The four primitive encoders

    /// `[u8; N]` (sid, keys, network id): Gen B raw bytes; Gen A N × (`u64 1` ‖ byte).
    func writeFixedBytes(_ bytes: [UInt8], to writer: inout NoritoWriter) {
        switch self {
        case .genB: writer.raw(bytes)
        case .genA: writer.elementwiseBytes(bytes, withCount: false)
        }
    }

    func readFixedBytes(_ count: Int, _ name: String, from reader: inout NoritoReader) throws(CodecError) -> [UInt8] {
        switch self {
        case .genB: try reader.raw(count, name)
        case .genA: try reader.elementwiseBytes(count: count, name)
        }
    }

    /// `Signature` bytes: Gen B `u64 len` ‖ raw; Gen A a generic sequence of `u8` elements.
    func writeSignatureBytes(_ bytes: [UInt8], to writer: inout NoritoWriter) {
        switch self {
        case .genB: writer.byteVector(bytes)
        case .genA: writer.elementwiseBytes(bytes, withCount: true)
        }
    }

    func readSignatureBytes(_ name: String, from reader: inout NoritoReader) throws(CodecError) -> [UInt8] {
        switch self {
        case .genB: try reader.byteVector(name)
        case .genA: try reader.elementwiseBytes(count: nil, name)
        }
    }

    /// `Algorithm`: Gen B `u8`; Gen A `u32` tag.
    func writeAlgorithm(_ algorithm: ConnectAlgorithm, to writer: inout NoritoWriter) {
        switch self {
        case .genB: writer.u8(algorithm.rawValue)
        case .genA: writer.u32(UInt32(algorithm.rawValue))
        }
    }

    func readAlgorithm(_ name: String, from reader: inout NoritoReader) throws(CodecError) -> ConnectAlgorithm {
        let start = reader.position
        let tag: UInt32
        switch self {
        case .genB: tag = UInt32(try reader.u8(name))
        case .genA: tag = try reader.u32(name)
        }
        guard tag <= UInt32(UInt8.max), let algorithm = ConnectAlgorithm(rawValue: UInt8(tag)) else {
            throw reader.error("\(name): unknown algorithm tag \(tag)", at: start)
        }
        return algorithm
    }

    /// `Constraints`: Gen B `{ network_id: [u8; 32] }`; Gen A `{ chain_id: String }`. The struct's bare encoding.
    func writeConstraints(_ constraints: ConnectConstraints, to writer: inout NoritoWriter) {
        switch constraints {
        case .network(let network): writer.field { writeFixedBytes(network.bytes, to: &$0) }
        case .chain(let chain): writer.field { $0.string(chain) }
        }
    }

    func readConstraints(from reader: inout NoritoReader) throws(CodecError) -> ConnectConstraints {
        switch self {
        case .genB:
            let bytes = try reader.field("network_id") { (reader: inout NoritoReader) throws(CodecError) in
                try readFixedBytes(32, "bytes", from: &reader)
            }
            return .network(ConnectNetworkID(exactly: bytes))
        case .genA:
            return .chain(try reader.field("chain_id") { (reader: inout NoritoReader) throws(CodecError) in try reader.string("text") })
        }
    }

    // MARK: - Envelope schema hash

    /// The 16-byte NRT0 schema hash of `EnvelopeV1` (computed once: every sealed or opened frame needs it).
    public var envelopeSchemaHash: [UInt8] {
        switch self {
        case .genA: Self.genAEnvelopeSchemaHash
        case .genB: Self.genBEnvelopeSchemaHash
        }
    }

    private static let genAEnvelopeSchemaHash = NoritoSchemaHash.fnv1a(typeName: envelopeTypeName)
    private static let genBEnvelopeSchemaHash = Array(SHA256.hash(NoritoSchemaHash.typeNameDomain + Array(envelopeTypeName.utf8)).prefix(16))

    // MARK: - sid

    /// `"iroha-connect|sid|" ‖ binding ‖ app_pk ‖ nonce`, where the binding is the 32-byte network id (Gen B) or
    /// the chain id's UTF-8 (Gen A).
    public func sidPreimage(constraints: ConnectConstraints, appPublicKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var preimage = Array("iroha-connect|sid|".utf8)
        switch constraints {
        case .network(let network): preimage += network.bytes
        case .chain(let chain): preimage += Array(chain.utf8)
        }
        return preimage + appPublicKey + nonce
    }

    // MARK: - Approval preimage

    /// The bytes the wallet's account key signs in `Approve`.
    ///
    /// Gen B: tagged fields (`u16 tag length` ‖ tag ‖ `u64 value length` ‖ value) for the domain, network id,
    /// BLAKE2b-256 of the constraints, sid, both public keys, account id, the optional permission and proof
    /// hashes, and the relay-auth hash. Gen A: `"iroha-connect|approve|"` ‖ sid ‖ app_pk ‖ wallet_pk ‖ account id
    /// ‖ [permission hash] ‖ [proof hash], concatenated.
    public func approvalPreimage(_ input: ConnectApprovalInput) throws(ConnectError) -> [UInt8] {
        let permissionsHash = input.permissions.map { ConnectCrypto.permissionsHash($0) }
        let proofHash = input.proof.map { ConnectCrypto.proofHash($0) }
        switch self {
        case .genA:
            var preimage = Array("iroha-connect|approve|".utf8)
            preimage += input.sid + input.appPublicKey + input.walletPublicKey + Array(input.accountID.utf8)
            if let permissionsHash { preimage += permissionsHash }
            if let proofHash { preimage += proofHash }
            return preimage
        case .genB:
            guard case .network(let network) = input.constraints else {
                throw ConnectError(.configuration, "Gen B approvals bind a network id, not a chain id")
            }
            guard let relayToken = input.relayToken else {
                throw ConnectError(.configuration, "Gen B approvals need the session's relay token")
            }
            var preimage: [UInt8] = []
            func tagged(_ tag: String, _ value: [UInt8]) {
                var writer = NoritoWriter()
                writer.u16(UInt16(tag.utf8.count))
                writer.raw(Array(tag.utf8))
                writer.byteVector(value)
                preimage += writer.bytes
            }
            tagged("domain", Array("iroha-connect|approve|v1".utf8))
            tagged("network_id", network.bytes)
            tagged("constraints", ConnectCrypto.constraintsHash(input.constraints, generation: self))
            tagged("sid", input.sid)
            tagged("app_pk", input.appPublicKey)
            tagged("wallet_pk", input.walletPublicKey)
            tagged("account_id", Array(input.accountID.utf8))
            if let permissionsHash { tagged("permissions", permissionsHash) }
            if let proofHash { tagged("proof", proofHash) }
            tagged("relay_auth", ConnectCrypto.relayAuthHash(sid: input.sid, relayToken: relayToken))
            return preimage
        }
    }

    // MARK: - Relay behaviour

    /// Gen B Torii re-derives the sid at registration and verifies approval signatures; Gen A does neither.
    public var relayChecksIdentity: Bool { self == .genB }
}

/// Everything an approval signature covers.
public struct ConnectApprovalInput: Sendable {
    public var sid: [UInt8]
    public var appPublicKey: [UInt8]
    public var walletPublicKey: [UInt8]
    public var accountID: String
    public var constraints: ConnectConstraints
    public var permissions: ConnectPermissions?
    public var proof: ConnectSignInProof?
    /// Gen B only: the session's `token_relay`, bound into the approval through `relay_auth`.
    public var relayToken: String?

    public init(sid: [UInt8], appPublicKey: [UInt8], walletPublicKey: [UInt8], accountID: String,
                constraints: ConnectConstraints, permissions: ConnectPermissions?, proof: ConnectSignInProof?,
                relayToken: String?) {
        self.sid = sid
        self.appPublicKey = appPublicKey
        self.walletPublicKey = walletPublicKey
        self.accountID = accountID
        self.constraints = constraints
        self.permissions = permissions
        self.proof = proof
        self.relayToken = relayToken
    }
}

import OmniCodec

/// The network presets of the reference's headless host (`truapi-host-cli` SPEC §14.1, `well-known-chains.ts`):
/// what `get_chain_info` and `feature_supported` answer from with `--network`, and the nodes chain methods are
/// forwarded to. omni's own table; a test compares it with the shared `networks.json`.
public enum TruAPINetworks {
    public struct Preset: Sendable {
        public let name: String
        public let chains: [(role: TruAPIChainSet.Role, genesisHash: String, rpc: String)]

        /// The preset's nodes, for chain forwarding.
        public var nodes: [(genesis: [UInt8], url: String)] {
            chains.map { ((try? Hex.decode($0.genesisHash, allowPrefix: true)) ?? [], $0.rpc) }
        }

        public var chainSet: TruAPIChainSet {
            // Hex literals of this table; a typo would fail the comparison test.
            TruAPIChainSet(network: name, chains: chains.map { ($0.role, (try? Hex.decode($0.genesisHash, allowPrefix: true)) ?? []) })
        }
    }

    public static let presets: [Preset] = [
        Preset(name: "paseo-next-v2", chains: [
            (.assetHub, "0x23e730eb1c6fecae09c917439a5038cb6122d0d48980e8b9bbf0ff56f94a2ca6", "wss://paseo-asset-hub-next-rpc.polkadot.io"),
            (.people, "0x89a63b11fef2c0273fc72c0d864da0793a665dade5db153e0cab995348c5440f", "wss://paseo-people-next-system-rpc.polkadot.io"),
            (.bulletin, "0x8cfe6717dc4becfda2e13c488a1e2061ff2dfee96e7d031157f72d36716c0a22", "wss://paseo-bulletin-next-rpc.polkadot.io"),
        ]),
        Preset(name: "previewnet", chains: [
            (.assetHub, "0x627f54413120c81161261b2ca87f60f0020963107dc28367491e09ec2dd29659", "wss://previewnet.substrate.dev/asset-hub"),
            (.people, "0x34999c298555e25bf17a7f3ea20efe7f6fdab1dfec7f808fbcfd36ca8aa5d220", "wss://previewnet.substrate.dev/people"),
            (.bulletin, "0x1144acd27f0e5b2c88da7dc12c111e396983dec036ccfb42da5bbb0dd7104e89", "wss://previewnet.substrate.dev/bulletin"),
        ]),
    ]

    public static func preset(named name: String) -> Preset? { presets.first { $0.name == name } }

    /// The chain set of `network` (a preset, or any other name for a set made only of `roles`), with `roles`
    /// added or replacing the preset's. Roles keep the wire order of `ChainIdentifier`.
    public static func chainSet(network: String?, roles: [(TruAPIChainSet.Role, [UInt8])]) throws(TruAPIError) -> TruAPIChainSet {
        var set: TruAPIChainSet
        if let network, let preset = preset(named: network) {
            set = preset.chainSet
        } else if let network {
            guard !roles.isEmpty else {
                let names = presets.map(\.name).joined(separator: ", ")
                throw TruAPIError(.configuration, "network \(network) is not a preset (\(names)); give its chains with --chain-role ROLE=GENESIS")
            }
            set = TruAPIChainSet(network: network)
        } else {
            set = TruAPIChainSet(network: roles.isEmpty ? "" : "custom")
        }
        for (role, genesis) in roles {
            set.chains.removeAll { $0.role == role }
            set.chains.append((role, genesis))
        }
        let order = TruAPIChainSet.Role.allCases
        set.chains.sort { order.firstIndex(of: $0.role)! < order.firstIndex(of: $1.role)! }
        return set
    }
}

extension TruAPIChainSet.Role {
    /// A role as written on the command line: `People`, `people`, `asset-hub`, `asset_hub`, `AssetHub`.
    public init?(loosely text: String) {
        let folded = text.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let role = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = role
    }
}

import OmniCLI
import OmniCodec
import OmniIC

/// `omni ic status`: what a replica says about itself (GET /api/v2/status).
enum ICStatusCommand {
    static let command = Command(
        "status", abstract: "Show a replica's self-reported status and root key (not authenticated).",
        discussion: """
            Prints the API and implementation versions, health, certified height and the root key the replica \
            reports, and whether that key is the mainnet key pinned in omni. Nothing here is certified: use it to \
            see whether a replica is up, or to copy a local replica's root key for --root-key. Exit 0 when the \
            replica reports itself healthy, 1 otherwise.
            """,
        options: [ICNetworkOptions.network, ICNetworkOptions.requestTimeout],
        examples: [
            Example("omni ic status", "The mainnet boundary nodes' status."),
            Example("omni ic status --network local -o json | jq -r .root_key > root.hex", "Save a local replica's root key."),
        ]
    ) { invocation in
        let network = try ICNetworkOptions.resolveNetwork(invocation)
        var configuration = ICAgent.Configuration(network: network)
        configuration.requestTimeout = try invocation.value(ICNetworkOptions.requestTimeout) ?? .seconds(20)
        let status = try ICAgent(configuration: configuration).status()
        var fields = FieldList()
        fields.add("network", .string(network.url))
        fields.add("api_version", status.apiVersion.map { .string($0) } ?? .null, label: "API version")
        fields.add("implementation_version", status.implementationVersion.map { .string($0) } ?? .null, label: "implementation")
        fields.add("health", status.healthStatus.map { .string($0) } ?? .null)
        fields.add("certified_height", status.certifiedHeight.map { .string(String($0)) } ?? .null)
        if let der = status.rootKey {
            let isMainnet = der == ICRootKey.mainnetDER
            fields.add("root_key", .string(Hex.encode(der)))
            fields.add("root_key_is_mainnet", .bool(isMainnet), label: "mainnet key",
                       text: isMainnet ? "yes (the key pinned in omni)" : "no")
        } else {
            fields.add("root_key", .null)
        }
        let healthy = status.healthStatus == nil || status.healthStatus == "healthy"
        return .output(fields, exitCode: healthy ? .ok : .failure)
    }
}

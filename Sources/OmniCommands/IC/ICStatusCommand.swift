import OmniCLI
import OmniCodec
import OmniIC

/// `omni ic status`: what a replica says about itself (GET /api/v2/status).
enum ICStatusCommand {
    static let command = Command(
        "status", abstract: "Show a replica's self-reported status and root key (not authenticated).",
        discussion: """
            Prints the API and implementation versions, health, certified height and the root key the replica \
            reports, labelled with what it is worth: pinned_mainnet (the mainnet key pinned in omni), \
            matches_trusted (the key given with --root-key), mismatch (not the key this network is verified with: \
            its certificates will fail), or unverified (nothing to compare it with). Nothing here is certified: \
            use it to see whether a replica is up, or to copy a local replica's root key for --root-key. HTTP 429, \
            502, 503, 504 and broken connections are retried (--retries). Exit 0 \
            when the replica reports itself healthy, 1 otherwise.
            """,
        options: [ICNetworkOptions.network, ICNetworkOptions.rootKey, ICNetworkOptions.requestTimeout, ICNetworkOptions.retries],
        examples: [
            Example("omni ic status", "The mainnet boundary nodes' status."),
            Example("omni ic status --network local -o json | jq -r .root_key > root.hex", "Save a local replica's root key."),
            Example("omni ic status --network local --root-key @root.hex", "Check that the replica still has the key you trust."),
        ]
    ) { invocation in
        let network = try ICNetworkOptions.resolveNetwork(invocation)
        let trusted = try ICNetworkOptions.givenRootKey(invocation)
        var configuration = ICAgent.Configuration(network: network)
        configuration.requestTimeout = try invocation.value(ICNetworkOptions.requestTimeout)
        configuration.retryPolicy = try ICNetworkOptions.retryPolicy(invocation)
        let status = try ICAgent(configuration: configuration) { event in
            if case .retrying = event { invocation.note("note: " + event.description) }
        }.status()
        var fields = FieldList()
        fields.add("network", .string(network.url))
        fields.add("api_version", status.apiVersion.map { .string($0) } ?? .null, label: "API version")
        fields.add("implementation_version", status.implementationVersion.map { .string($0) } ?? .null, label: "implementation")
        fields.add("health", status.healthStatus.map { .string($0) } ?? .null)
        fields.add("certified_height", status.certifiedHeight.map { .string(String($0)) } ?? .null)
        if let der = status.rootKey, let trust = status.rootKeyTrust(network: network, trusted: trusted) {
            fields.add("root_key", .string(Hex.encode(der)), text: Hex.encode(der) + " (\(trust.description))")
            fields.add("root_key_trust", .string(trust.rawValue), label: "root key trust")
            fields.add("root_key_is_mainnet", .bool(der == ICRootKey.mainnetDER), label: "mainnet key")
        } else {
            fields.add("root_key", .null)
            fields.add("root_key_trust", .null, label: "root key trust")
        }
        if status.rootKeyTrust(network: network, trusted: trusted) == .mismatch {
            invocation.warn("warning: the replica reports another root key than the one \(network.url) is verified with: "
                            + "its certificates will not verify")
        }
        let healthy = status.healthStatus == nil || status.healthStatus == "healthy"
        return .output(fields, exitCode: healthy ? .ok : .failure)
    }
}

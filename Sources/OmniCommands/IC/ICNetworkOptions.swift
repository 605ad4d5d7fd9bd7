import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC
import OmniSystem
import OmniTransport

/// The options every networked `omni ic` command shares (network, trust, identity, waiting, limits), and the one
/// place they become an `ICAgent`.
enum ICNetworkOptions {
    static let network = Option<ICNetwork>(
        "network", short: "n", valueName: "NETWORK",
        help: "ic (https://icp-api.io), local (http://127.0.0.1:4943) or a replica URL.",
        absentMeans: "ic", environment: "OMNI_NETWORK", config: "ic.network", completion: .values(["ic", "local"]),
        group: "Network")
    static let rootKey = Option<ICRootKey>(
        "root-key", valueName: "KEY",
        help: "Root of trust for certificates: mainnet (pinned in omni), the replica's key as hex (266 digits of DER or 192 "
            + "of the raw G2 point), or @FILE (hex or DER). Needed for a local replica.",
        absentMeans: "the pinned mainnet key (a local replica needs its own)", environment: "OMNI_IC_ROOT_KEY", config: "ic.root_key", source: .content,
        group: "Trust")
    static let fetchRootKey = Flag(
        "fetch-root-key",
        help: "Trust the root key a replica on this machine reports (loopback URLs only, never the mainnet); prints a warning.",
        group: "Trust")
    static let timeTolerance = DefaultedOption<Duration>(
        "time-tolerance", valueName: "DURATION",
        help: "How far a certificate's /time or a query signature's timestamp may be from this machine's clock.",
        default: .seconds(300), environment: "OMNI_IC_TIME_TOLERANCE", config: "ic.time_tolerance", group: "Trust")
    static let pollInterval = DefaultedOption<Duration>(
        "poll-interval", valueName: "DURATION", help: "Time between request-status polls after a call was accepted (202).",
        default: .seconds(1), environment: "OMNI_IC_POLL_INTERVAL", config: "ic.poll_interval", group: "Waiting")
    static let pollAttempts = DefaultedOption<Int>(
        "poll-attempts", valueName: "N", help: "Polls before giving up (exit 5; the call may still complete).",
        default: 30, environment: "OMNI_IC_POLL_ATTEMPTS", config: "ic.poll_attempts", group: "Waiting")
    static let requestTimeout = DefaultedOption<Duration>(
        "request-timeout", valueName: "DURATION", help: "Timeout of each HTTP request.",
        default: .seconds(20), environment: "OMNI_IC_REQUEST_TIMEOUT", config: "ic.request_timeout", group: "Network")
    static let retries = DefaultedOption<Int>(
        "retries", valueName: "N",
        help: "Send the same request again up to N times after HTTP 429/502/503/504 or a broken connection (capped "
            + "exponential backoff, Retry-After honoured up to 30 s). Never a new signature: a call keeps its request id.",
        default: 2, environment: "OMNI_IC_RETRIES", config: "ic.retries", group: "Network")
    static let subnet = Option<Principal>(
        "subnet", valueName: "ID",
        help: "Send the request to this subnet (/api/v3/subnet/ID/query, /api/v4/subnet/ID/call, /api/v3/subnet/ID/read_state); "
            + "its certificates and node keys must be that subnet's.",
        group: "Network")
    static let delegationTarget = Option<Principal>(
        "delegation-target", valueName: "CANISTER",
        help: "The canister a scoped session's delegation targets must include for this request, checked before "
            + "anything is sent.",
        absentMeans: "what the IC checks: the canister called; for an aaaaa-aa query about a canister "
            + "(canister_status, canister_metrics, …), that canister",
        group: "Identity")
    static let maxResponseSize = DefaultedOption<ByteCount>(
        "max-response-size", valueName: "SIZE", help: "Largest response accepted, e.g. 512KiB, 2MiB (at most 10MiB).",
        default: ByteCount(bytes: ResponseLimits.maxBytes), environment: "OMNI_IC_MAX_RESPONSE_SIZE",
        config: "ic.max_response_size", group: "Network")

    /// Network and trust options (every networked command).
    static let connection: [any OptionDeclaration] = [network, rootKey, fetchRootKey, timeTolerance, requestTimeout, retries,
                                                      maxResponseSize]
    /// Who signs (the same options as the offline 'omni ic sign').
    static let signing: [any OptionDeclaration] = ICIdentitySelection.options
    /// How long to wait for an update call's result.
    static let waiting: [any OptionDeclaration] = [pollInterval, pollAttempts]
    /// The rules every networked command declares: one root of trust, one signer.
    static let relations: [Relation] = [.conflicting(rootKey, fetchRootKey)] + ICIdentitySelection.relations

    /// The network: `--network` (or its environment variable or config key), else `hint` (a signed request file's),
    /// else the mainnet.
    static func resolveNetwork(_ invocation: Invocation, hint: String? = nil) throws -> ICNetwork {
        if let chosen = try invocation.value(network) { return chosen }
        return try ICNetwork(hint ?? "ic")
    }

    /// `--root-key` as given (the command line's bytes, `@FILE` read, or the environment or config value).
    static func givenRootKey(_ invocation: Invocation) throws -> ICRootKey? {
        try ICInput.rootKey(try invocation.bytes(of: rootKey)) ?? invocation.value(rootKey)
    }

    /// Everything a networked command needs that can be checked on this machine: the network, the trust decision,
    /// the signer (its key file read), the limits. Commands prepare it before the first byte goes out.
    static func prepare(_ invocation: Invocation, networkHint: String? = nil) throws -> ICConnection {
        let network = try resolveNetwork(invocation, hint: networkHint)
        let fetches = try invocation.value(fetchRootKey)
        let given = try givenRootKey(invocation)
        let trust: ICConnection.Trust
        if fetches {
            // Configuration errors of the command line (CLIError), not of the identity store.
            guard !network.isMainnet else {
                throw CLIError(.configuration, "--fetch-root-key is never used for the mainnet: its root key is pinned in omni")
            }
            guard network.isLoopback else {
                throw CLIError(.configuration, "--fetch-root-key is only for a replica on this machine (localhost, 127.0.0.0/8, ::1), "
                               + "not \(network.url): give its root key with --root-key")
            }
            trust = .fetchFromReplica
        } else if let given {
            if network.isMainnet && !given.isMainnet {
                throw CLIError(.configuration, "\(network.url) is the mainnet: it is verified with the pinned mainnet root key only")
            }
            trust = .key(given)
        } else if network.isMainnet || !network.isLoopback {
            trust = .key(.mainnet)
        } else {
            throw CLIError(.configuration, "the replica at \(network.url) has its own root key: give it with --root-key HEX|@FILE "
                           + "(see 'omni ic status --network \(network.name ?? network.url)') or use --fetch-root-key")
        }
        var configuration = ICAgent.Configuration(network: network)
        configuration.freshnessTolerance = try invocation.value(timeTolerance).nanosecondsValue
        configuration.requestTimeout = try invocation.value(requestTimeout)
        configuration.maxResponseBytes = try invocation.value(maxResponseSize).bytes
        configuration.pollInterval = try invocation.value(pollInterval)
        configuration.pollAttempts = try invocation.value(pollAttempts)
        configuration.nodeKeyCache = NodeKeyCache(directories: Directories(environment: invocation.environment))
        configuration.retryPolicy = try retryPolicy(invocation)
        return ICConnection(configuration: configuration, trust: trust, signer: try ICIdentitySelection.resolve(invocation))
    }

    /// `--retries` as a policy (the delays are the agent's defaults).
    static func retryPolicy(_ invocation: Invocation) throws -> RetryPolicy {
        let count = try invocation.value(retries)
        guard (0...RetryPolicy.maxRetries).contains(count) else {
            throw CLIError.usage("--retries must be between 0 and \(RetryPolicy.maxRetries), got \(count)", commandPath: invocation.commandPath)
        }
        return RetryPolicy(retries: count)
    }

    static func report(_ event: ICAgentEvent, invocation: Invocation, progress: OmniCLI.Progress) {
        switch event {
        case .polled(let id, let attempt, let total, let status):
            progress.update("for \(id.prefixedHex.prefix(18))…: \(status) (poll \(attempt)/\(total))")
            invocation.detail(event.description)
        case .accepted:
            progress.update("accepted")
            invocation.detail(event.description)
        case .clockSkewCorrected(let skew, let source):
            let basis = source == .certifiedTime ? "by the network's certified time"
                : "as the replica says (unverified, within --time-tolerance)"
            invocation.note("note: " + ClockSkew.describeLocalClock(skew) + " " + basis + "; signed again with its time")
        case .refusalContradicted, .nodeKeysRefreshing, .cacheWriteFailed, .retrying, .callKnownAfterFailure:
            invocation.note("note: " + event.description)
        case .endpointFallback, .nodeKeysFetched, .nodeKeysFromCache:
            invocation.detail(event.description)
        }
    }
}

/// A networked command's setup, checked offline (`ICNetworkOptions.prepare`); `agent` is the first step that may
/// use the network (fetching a local replica's root key with --fetch-root-key).
struct ICConnection {
    enum Trust {
        case key(ICRootKey)
        case fetchFromReplica
    }

    let configuration: ICAgent.Configuration
    let trust: Trust
    let signer: ICIdentitySelection.Choice

    var network: ICNetwork { configuration.network }

    func agent(_ invocation: Invocation, progress: OmniCLI.Progress) throws -> ICAgent {
        var logger: HTTPLogger?
        if invocation.verbose { logger = { line in invocation.detail("http " + line) } }
        let client = HTTPClient(configuration: .init(userAgent: "omni/\(VersionCommand.version)", connectTimeout: .seconds(10),
                                                     logger: logger))
        let transport = HTTPClientTransport(client: client)
        var configuration = configuration
        switch trust {
        case .key(let key):
            configuration.rootKey = key
        case .fetchFromReplica:
            configuration.rootKey = try ICAgent.fetchRootKey(network: network, transport: transport,
                                                             timeout: configuration.requestTimeout,
                                                             retryPolicy: configuration.retryPolicy) { event in
                ICNetworkOptions.report(event, invocation: invocation, progress: progress)
            }
            invocation.warn("warning: --fetch-root-key: trusting the root key that \(network.url) reports about itself; "
                            + "certificates only prove what that replica says")
        }
        invocation.detail("signing as " + signer.description)
        return try ICAgent(configuration: configuration, identity: signer.identity, transport: transport) { event in
            ICNetworkOptions.report(event, invocation: invocation, progress: progress)
        }
    }
}

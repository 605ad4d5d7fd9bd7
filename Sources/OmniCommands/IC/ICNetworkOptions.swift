import OmniCandid
import OmniCLI
import OmniCodec
import OmniIC
import OmniSystem
import OmniTransport

/// The options every networked `omni ic` command shares (network, trust, identity, waiting, limits), and the one
/// place they become an `ICAgent`.
enum ICNetworkOptions {
    static let network = Option<String>(
        "network", short: "n", valueName: "NETWORK",
        help: "ic (https://icp-api.io), local (http://127.0.0.1:4943) or a replica URL.",
        default: "ic", environment: "OMNI_NETWORK", config: "ic.network", completion: .values(["ic", "local"]), group: "Network")
    static let rootKey = Option<String>(
        "root-key", valueName: "KEY",
        help: "Root of trust for certificates: mainnet (pinned in omni), the replica's key as hex (266 digits of DER or 192 "
            + "of the raw G2 point), or @FILE (hex or DER). Needed for a local replica.",
        environment: "OMNI_IC_ROOT_KEY", config: "ic.root_key", source: .content, group: "Trust")
    static let fetchRootKey = Flag(
        "fetch-root-key",
        help: "Trust the root key a replica on this machine reports (loopback URLs only, never the mainnet); prints a warning.",
        group: "Trust")
    static let unsafe = Flag(
        "unsafe",
        help: "Skip ALL verification: certificates (signature, delegation, ranges, time) and query node signatures. "
            + "Nothing printed is then authenticated; a warning says so on stderr.",
        group: "Trust")
    static let timeTolerance = Option<Duration>(
        "time-tolerance", valueName: "DURATION",
        help: "How far a certificate's /time or a query signature's timestamp may be from this machine's clock.",
        default: .seconds(300), defaultDescription: "5m", environment: "OMNI_IC_TIME_TOLERANCE", config: "ic.time_tolerance",
        group: "Trust")
    static let pollInterval = Option<Duration>(
        "poll-interval", valueName: "DURATION", help: "Time between request-status polls after a call was accepted (202).",
        default: .seconds(1), defaultDescription: "1s", environment: "OMNI_IC_POLL_INTERVAL", config: "ic.poll_interval",
        group: "Waiting")
    static let pollAttempts = Option<Int>(
        "poll-attempts", valueName: "N", help: "Polls before giving up (exit 5; the call may still complete).",
        default: 30, environment: "OMNI_IC_POLL_ATTEMPTS", config: "ic.poll_attempts", group: "Waiting")
    static let requestTimeout = Option<Duration>(
        "request-timeout", valueName: "DURATION", help: "Timeout of each HTTP request.",
        default: .seconds(20), defaultDescription: "20s", environment: "OMNI_IC_REQUEST_TIMEOUT", config: "ic.request_timeout",
        group: "Network")
    static let maxResponseSize = Option<ByteCount>(
        "max-response-size", valueName: "SIZE", help: "Largest response accepted, e.g. 512KiB, 2MiB (at most 10MiB).",
        default: ByteCount(bytes: 10 << 20), defaultDescription: "10MiB", environment: "OMNI_IC_MAX_RESPONSE_SIZE",
        config: "ic.max_response_size", group: "Network")

    /// Network and trust options (every networked command).
    static let connection: [any OptionDeclaration] = [network, rootKey, fetchRootKey, unsafe, timeTolerance, requestTimeout,
                                                      maxResponseSize]
    /// Who signs (the same options as the offline 'omni ic sign').
    static let signing: [any OptionDeclaration] = ICIdentitySelection.options
    /// How long to wait for an update call's result.
    static let waiting: [any OptionDeclaration] = [pollInterval, pollAttempts]

    // MARK: Building the agent

    /// The network named by `--network` (or `hint`, e.g. a signed request file's, when the user named none).
    static func resolveNetwork(_ invocation: Invocation, hint: String? = nil) throws -> ICNetwork {
        let explicit = invocation.isGiven(network) || !(invocation.environment["OMNI_NETWORK"] ?? "").isEmpty
        if !explicit, let hint { return try ICNetwork(hint) }
        return try ICNetwork(try invocation.value(network) ?? "ic")
    }

    /// An agent configured from the options, signing as `ICIdentitySelection` says. Polling is drawn on `progress`
    /// (the caller finishes it).
    static func agent(_ invocation: Invocation, progress: OmniCLI.Progress, networkHint: String? = nil) throws -> ICAgent {
        let network = try resolveNetwork(invocation, hint: networkHint)
        let verifies = !(try invocation.flag(unsafe))
        if !verifies {
            invocation.streams.err(invocation.stderrStyle.warn("warning: --unsafe: responses are NOT verified (no certificate or "
                + "query signature checks); nothing printed below is authenticated") + "\n")
        }
        var logger: HTTPLogger?
        if invocation.verbose { logger = { line in invocation.detail("http " + line) } }
        let client = HTTPClient(configuration: .init(userAgent: "omni/\(VersionCommand.version)", connectTimeout: .seconds(10),
                                                     logger: logger))
        let transport = HTTPClientTransport(client: client)
        var configuration = ICAgent.Configuration(network: network,
                                                  rootKey: try trustedRootKey(invocation, network: network, verifies: verifies,
                                                                              transport: transport))
        configuration.verifies = verifies
        configuration.freshnessTolerance = ICInput.nanoseconds(try invocation.value(timeTolerance) ?? .seconds(300))
        configuration.pollInterval = try invocation.value(pollInterval) ?? .seconds(1)
        configuration.pollAttempts = try invocation.value(pollAttempts) ?? 30
        configuration.requestTimeout = try invocation.value(requestTimeout) ?? .seconds(20)
        configuration.maxResponseBytes = (try invocation.value(maxResponseSize))?.bytes ?? ResponseLimits.maxBytes
        configuration.nodeKeyCache = NodeKeyCache(directories: Directories(environment: invocation.environment))
        let identity = try ICIdentitySelection.resolve(invocation).identity
        return try ICAgent(configuration: configuration, identity: identity, transport: transport) { event in
            report(event, invocation: invocation, progress: progress)
        }
    }

    static func report(_ event: ICAgentEvent, invocation: Invocation, progress: OmniCLI.Progress) {
        switch event {
        case .polled(let id, let attempt, let total, let status):
            progress.update("for \(id.prefixedHex.prefix(18))…: \(status) (poll \(attempt)/\(total))")
            invocation.detail(event.description)
        case .accepted:
            progress.update("accepted")
            invocation.detail(event.description)
        case .clockSkewCorrected, .refusalContradicted, .nodeKeysRefreshing, .cacheWriteFailed:
            invocation.note("note: " + event.description)
        case .endpointFallback, .nodeKeysFetched, .nodeKeysFromCache:
            invocation.detail(event.description)
        }
    }

    /// The root of trust: the pinned mainnet key for the mainnet; for other networks `--root-key`, or (loopback
    /// only, with a warning) the replica's own report with `--fetch-root-key`.
    static func trustedRootKey(_ invocation: Invocation, network: ICNetwork, verifies: Bool,
                               transport: any ICTransport) throws -> ICRootKey {
        let given = try ICInput.rootKey(invocation, option: rootKey)
        let fetch = try invocation.flag(fetchRootKey)
        if fetch {
            if given != nil {
                throw CLIError.usage("--root-key and --fetch-root-key cannot be combined", commandPath: invocation.commandPath)
            }
            // Configuration errors of the command line (CLIError), not of the identity store.
            guard !network.isMainnet else {
                throw CLIError(.configuration, "--fetch-root-key is never used for the mainnet: its root key is pinned in omni")
            }
            guard network.isLoopback else {
                throw CLIError(.configuration, "--fetch-root-key is only for a replica on this machine (localhost, 127.0.0.0/8, ::1), "
                               + "not \(network.url): give its root key with --root-key")
            }
            let key = try ICAgent.fetchRootKey(network: network, transport: transport,
                                               timeout: try invocation.value(requestTimeout) ?? .seconds(20))
            invocation.streams.err(invocation.stderrStyle.warn("warning: --fetch-root-key: trusting the root key that \(network.url) "
                + "reports about itself; certificates only prove what that replica says") + "\n")
            return key
        }
        if let key = given {
            if network.isMainnet && !key.isMainnet {
                throw CLIError(.configuration, "\(network.url) is the mainnet: it is verified with the pinned mainnet root key only")
            }
            return key
        }
        if network.isMainnet || !verifies || !network.isLoopback { return .mainnet }
        throw CLIError(.configuration, "the replica at \(network.url) has its own root key: give it with --root-key HEX|@FILE "
                       + "(see 'omni ic status --network \(network.name ?? network.url)') or use --fetch-root-key")
    }
}

/// A size in bytes: `1048576`, `512KiB`, `2MiB`, `10MB`, `64k`.
struct ByteCount: ArgumentValue, Equatable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingWhitespace().lowercased()
        let units: [(String, Int)] = [("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1000), ("mb", 1_000_000),
                                      ("gb", 1_000_000_000), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1)]
        var number = Substring(text)
        var factor = 1
        for (suffix, value) in units where text.hasSuffix(suffix) {
            number = number.dropLast(suffix.count)
            factor = value
            break
        }
        guard let count = Int(number.trimmingWhitespace()), count > 0 else { return nil }
        let (total, overflow) = count.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        bytes = total
    }

    static var expectation: String { "a size like 512KiB, 2MiB or a number of bytes" }

    var description: String { "\(bytes)" }
}

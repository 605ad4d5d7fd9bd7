import OmniCodec

/// The chains a host serves (`get_chain_info`, `feature_supported`): a network name and a genesis per role.
public struct TruAPIChainSet: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        // The order is ChainIdentifier's wire order.
        case relay = "Relay", assetHub = "AssetHub", people = "People", bulletin = "Bulletin"
    }

    public var network: String
    public var chains: [(role: Role, genesisHash: [UInt8])]

    public init(network: String, chains: [(role: Role, genesisHash: [UInt8])] = []) {
        self.network = network
        self.chains = chains
    }

    public static let empty = TruAPIChainSet(network: "")

    public func genesis(of role: Role) -> [UInt8]? { chains.first { $0.role == role }?.genesisHash }
    public func serves(genesis: [UInt8]) -> Bool { chains.contains { $0.genesisHash == genesis } }

    public static func == (lhs: TruAPIChainSet, rhs: TruAPIChainSet) -> Bool {
        lhs.network == rhs.network && lhs.chains.map(\.role) == rhs.chains.map(\.role)
            && lhs.chains.map(\.genesisHash) == rhs.chains.map(\.genesisHash)
    }
}

/// How `system_navigate_to` treats a URL (reference §6 and §12: http(s) is gated per host, app hand-off schemes
/// pass, dotNS names and localhost need no grant).
public enum TruAPINavigation: Sendable, Equatable {
    /// Refused as `Unknown { reason }`.
    case invalid(reason: String)
    /// `http(s)://host…`: needs a `Remote { domains: [host] }` grant, else `PermissionDenied`.
    case needsGrant(url: String, host: String)
    /// Opened without a grant: `https://<name.dot>/…`, `http://localhost…`, `mailto:`, `tel:`, `polkadot:`, `dot:`.
    case allowed(url: String)

    public static let handOffSchemes: Set<String> = ["mailto", "tel", "polkadot", "dot"]
    public static let dotNSSuffixes = [".dot", ".paseo", ".test"]

    public static func classify(_ input: String) -> TruAPINavigation {
        let text = input.trimmingWhitespaceAndNewlines()
        guard !text.isEmpty else { return .invalid(reason: "empty URL") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            return .invalid(reason: "URL contains spaces or control characters")
        }
        if let colon = text.firstIndex(of: ":"), let scheme = Optional(text[..<colon].lowercased()),
           !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }), scheme.first!.isLetter {
            let rest = text[text.index(after: colon)...]
            if handOffSchemes.contains(scheme) { return .allowed(url: text) }
            if scheme == "http" || scheme == "https" {
                guard rest.hasPrefix("//") else { return .invalid(reason: "\(scheme) URL without a host") }
                let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
                let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
                let host = hostPort.hasPrefix("[") ? String(hostPort.prefix { $0 != "]" }) + "]"
                    : String(hostPort.prefix { $0 != ":" }).lowercased()
                guard !host.isEmpty else { return .invalid(reason: "\(scheme) URL without a host") }
                if host == "localhost" || isDotNS(host) { return .allowed(url: text) }
                return .needsGrant(url: text, host: host)
            }
            // `localhost:3000/x` parses as scheme "localhost"; a bare dotNS name with a port likewise.
            if scheme != "localhost", !isDotNS(scheme) { return .invalid(reason: "unsupported URL scheme \(scheme):") }
        }
        // No scheme: a dotNS name or localhost, with an optional port and path.
        let hostPort = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = hostPort.prefix { $0 != ":" }.lowercased()
        if host == "localhost" { return .allowed(url: "http://" + text) }
        if isDotNS(host) { return .allowed(url: "https://" + text) }
        return .invalid(reason: "not a URL, a dotNS name or localhost: \(text.prefix(80))")
    }

    static func isDotNS(_ host: String) -> Bool {
        dotNSSuffixes.contains { host.hasSuffix($0) && host.count > $0.count }
    }
}

/// The reference's answer to every method for a host with no signing session and none of the bridge's state
/// (storage, permissions, notifications, chains beyond `chains`, preimages): what `omni truapi bridge` builds on by
/// subclassing (override `respond`/`subscribe`, call `super` for the rest) or by wrapping.
///
/// - handshake: codec version 1 → unit Ok; anything else → `UnsupportedProtocolVersion`.
/// - feature_supported: true iff the genesis is in `chains`; get_chain_info from `chains`, else `NotSupported`.
/// - navigate_to: `TruAPINavigation` (http(s) denied without a grant, there being no grants; app hand-off, dotNS
///   and localhost Ok).
/// - device and remote permissions: not granted. Local storage and notifications: `Unknown` (no storage here);
///   cancelling a notification is idempotent (Ok).
/// - account and signing: `NotConnected` / `Rejected` / `Unknown {"Not connected"}` as each method's error type
///   has it; get_legacy_accounts empty; request_login `Rejected`; resource allocation `NotAvailable` per resource.
/// - payments: the dot.li refusals (`PermissionDenied` for balance, `Unknown` for the others); coin payment, chat,
///   statement store and ring-VRF: `Unsupported` (statement subscriptions with more than 128 topics first get the
///   reference's typed error).
/// - chain_*: `HostFailure` (no chain connection); chain follow ends at once.
/// - connection status (Disconnected), theme (`themeValue`) and preimage lookup (None) emit their current value
///   at once and stay open.
open class TruAPIDefaultHost: TruAPIHost, @unchecked Sendable {
    public let chains: TruAPIChainSet
    /// The session state subscribers see; the bridge updates it when a session starts or ends.
    public let connectionStatus: TruAPICurrentValue
    public let theme: TruAPICurrentValue

    public static let paymentsRefusal = "Payments are not supported in dot.li"
    public static let maximumStatementTopics = 128

    public init(chains: TruAPIChainSet = .empty, theme: SCALEValue = TruAPIDefaultHost.themeValue(name: nil, dark: true)) {
        self.chains = chains
        connectionStatus = TruAPICurrentValue(.unitVariant("Disconnected"))
        self.theme = TruAPICurrentValue(theme)
    }

    /// A `HostThemeSubscribeItem`: `Default` (or `Custom(name)`) with `Light` or `Dark`.
    public static func themeValue(name: String?, dark: Bool) -> SCALEValue {
        .record(["name": name.map { .variant("Custom", .string($0)) } ?? .unitVariant("Default"),
                 "variant": .unitVariant(dark ? "Dark" : "Light")])
    }

    private static func unit(_ name: String) -> TruAPICallError { .domainV1(.unitVariant(name)) }

    open func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError> {
        Self.defaultAnswer(to: call, chains: chains)
    }

    /// None: a subclass that overrides `respond` must not be bypassed by answers of this class's own.
    open func immediateAnswer(to call: TruAPICall) -> Result<SCALEValue, TruAPICallError>? { nil }

    /// The answer of a host without session or state (see the type's documentation).
    public static func defaultAnswer(to call: TruAPICall, chains: TruAPIChainSet = .empty) -> Result<SCALEValue, TruAPICallError> {
        let request = call.request
        switch call.method.name {
        case "system_handshake":
            return request["codec_version"]?.integerValue == 1 ? .success(.unit) : .failure(unit("UnsupportedProtocolVersion"))
        case "system_feature_supported":
            let genesis = request["genesis_hash"]?.bytesValue ?? []
            return .success(.record(["supported": .bool(chains.serves(genesis: genesis))]))
        case "system_navigate_to":
            switch TruAPINavigation.classify(request["url"]?.stringValue ?? "") {
            case .invalid(let reason): return .failure(.domainUnknown(reason))
            case .needsGrant: return .failure(unit("PermissionDenied"))
            case .allowed: return .success(.unit)
            }
        case "permissions_request_device_permission", "permissions_request_remote_permission":
            return .success(.record(["granted": .bool(false)]))
        case "local_storage_read", "local_storage_write", "local_storage_clear":
            return .failure(.domainUnknown("local storage is not available on this host"))
        case "notifications_send_push_notification":
            return .failure(.domainUnknown("notifications are not available on this host"))
        case "notifications_cancel_push_notification":
            return .success(.unit)
        case "account_get_account", "account_get_user_id", "account_sign_vrf":
            return .failure(unit("NotConnected"))
        case "account_get_legacy_accounts":
            return .success(.record(["accounts": .sequence([])]))
        case "account_request_login":
            return .success(.unitVariant("Rejected"))
        case "signing_create_transaction", "signing_create_transaction_with_legacy_account", "signing_sign_raw",
             "signing_sign_payload", "signing_sign_raw_with_legacy_account", "signing_sign_payload_with_legacy_account":
            return .failure(unit("Rejected"))
        case "entropy_derive":
            return .failure(.domainUnknown("Not connected"))
        case "preimage_submit":
            return .failure(.domainUnknown("not supported"))
        case "resource_allocation_request":
            let count = request["resources"]?.sequenceValue?.count ?? 0
            return .success(.record(["outcomes": .sequence(Array(repeating: .unitVariant("NotAvailable"), count: count))]))
        case "payment_top_up", "payment_request":
            return .failure(.domainUnknown(paymentsRefusal))
        case "chain_get_chain_info":
            guard let name = request["chain"]?.variantName, let role = TruAPIChainSet.Role(rawValue: name),
                  let genesis = chains.genesis(of: role) else { return .failure(unit("NotSupported")) }
            return .success(.record(["network": .string(chains.network), "chain": .unitVariant(name), "genesis_hash": .bytes(genesis)]))
        default:
            if call.method.name.hasPrefix("chain_") {
                return .failure(.hostFailure(reason: "\(call.method.name): no chain connection for this genesis hash"))
            }
            // chat_*, statement_store_*, coin_payment_*, ring-VRF (alias, proofs, keys).
            return .failure(.unsupported)
        }
    }

    open func subscribe(to call: TruAPICall) async -> TruAPISubscription {
        switch call.method.name {
        case "account_connection_status_subscribe":
            return .stream(connectionStatus.stream())
        case "theme_subscribe":
            return .stream(theme.stream())
        default:
            return Self.defaultSubscription(to: call)
        }
    }

    /// The start answer of a host without session or state for subscriptions that need no current value.
    public static func defaultSubscription(to call: TruAPICall) -> TruAPISubscription {
        switch call.method.name {
        case "preimage_lookup_subscribe":
            return .stream(truAPIOpenStream([.record(["value": .absent])]))
        case "payment_balance_subscribe":
            return .failure(unit("PermissionDenied"))
        case "payment_status_subscribe":
            return .failure(.domainUnknown(paymentsRefusal))
        case "statement_store_subscribe":
            if let name = call.request.variantName, let topics = call.request.variantPayload?.sequenceValue,
               topics.count > maximumStatementTopics {
                return .failure(.domainV1(.record(["reason": .string(
                    "\(name) has \(topics.count) topics, maximum is \(maximumStatementTopics)")])))
            }
            return .failure(.unsupported)
        default:
            // chain_follow_head (no chain), chat lists and actions, coin payment streams.
            return .failure(.unsupported)
        }
    }
}

import OmniCodec
import OmniCrypto
import OmniSystem
import Synchronization

/// A theme as the bridge is told it (`--theme`, a theme file): `light`, `dark`, `custom:NAME` (dark) or
/// `custom:NAME:light` / `custom:NAME:dark`.
public struct TruAPITheme: Sendable, Equatable, CustomStringConvertible {
    public let customName: String?
    public let dark: Bool

    public init(customName: String? = nil, dark: Bool) {
        self.customName = customName
        self.dark = dark
    }

    public init?(_ text: String) {
        let word = text.trimmingWhitespaceAndNewlines()
        switch word.lowercased() {
        case "light": self.init(dark: false)
        case "dark": self.init(dark: true)
        default:
            guard word.lowercased().hasPrefix("custom:") else { return nil }
            var name = String(word.dropFirst("custom:".count))
            var dark = true
            for (suffix, isDark) in [(":light", false), (":dark", true)] where name.lowercased().hasSuffix(suffix) {
                name = String(name.dropLast(suffix.count))
                dark = isDark
            }
            guard !name.isEmpty, name.utf8.count <= 256, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return nil
            }
            self.init(customName: name, dark: dark)
        }
    }

    public static let spellings = "light, dark, custom:NAME, custom:NAME:light or custom:NAME:dark"

    /// The `HostThemeSubscribeItem` products receive.
    public var value: SCALEValue { TruAPIDefaultHost.themeValue(name: customName, dark: dark) }

    public var description: String {
        guard let customName else { return dark ? "dark" : "light" }
        return "custom:\(customName):\(dark ? "dark" : "light")"
    }
}

/// What every connection of one bridge shares: the product, its chains, state, permissions, theme, connection
/// status, preimages and notification timers, and what the host does outside the protocol (open a URL, show a
/// notification, log). One per bridge; each connection gets its own `TruAPIBridgeHost` over it.
public final class TruAPIBridgeContext: Sendable {
    public let productID: TruAPIProductID
    /// The dotNS suffixes product ids may end in (`--product-tld`), for the ids products send.
    public let productSuffixes: [String]
    /// The signing session, nil for a host without one (account calls answer NotConnected, signing Rejected).
    public let session: TruAPISession?
    public let chains: TruAPIChainSet
    /// The nodes chain methods are forwarded to (`--chain`, `--network`), by genesis.
    public let chainForwarder: TruAPIChainForwarder
    public let state: TruAPIBridgeState
    public let permissions: TruAPIPermissionBroker
    /// Changed by SIGHUP (`--theme-file`); every open theme subscription sees the change.
    public let theme: TruAPICurrentValue
    /// Connected while the bridge has a signing session.
    public let connectionStatus: TruAPICurrentValue
    /// `--preimages DIR`: files named by the lowercase hex of their blake2b-256 hash.
    public let preimagesDirectory: String?

    /// Opens a URL after the host allowed it (`--opener`); returns why it failed, nil when it worked. Nil: only logged.
    let opener: (@Sendable (String) async -> String?)?
    /// Shows a notification besides the event line (`--notify`).
    let notifier: (@Sendable (TruAPINotification) -> Void)?
    let onEvent: @Sendable (TruAPIBridgeEvent) -> Void
    let clock: @Sendable () -> UInt64

    private struct Mutable {
        var timers: [UInt32: Task<Void, Never>] = [:]
        var reportedMismatches: Set<String> = []
        var closed = false
    }
    private let mutable = Mutex(Mutable())

    /// Largest preimage served: the item must fit an 8 MiB frame with its envelope.
    static let maximumPreimageBytes = TruAPIFrame.maximumBytes - 1024

    public init(productID: TruAPIProductID, productSuffixes: [String] = TruAPIProductID.defaultSuffixes, session: TruAPISession? = nil,
                chains: TruAPIChainSet, chainNodes: [(genesis: [UInt8], url: String)] = [], state: TruAPIBridgeState,
                permissions: TruAPIPermissionBroker,
                theme: TruAPITheme = TruAPITheme(dark: true), preimagesDirectory: String? = nil,
                opener: (@Sendable (String) async -> String?)? = nil, notifier: (@Sendable (TruAPINotification) -> Void)? = nil,
                clock: (@Sendable () -> UInt64)? = nil,
                onEvent: @escaping @Sendable (TruAPIBridgeEvent) -> Void = { _ in }) {
        self.productID = productID
        self.productSuffixes = productSuffixes
        self.session = session
        connectionStatus = TruAPICurrentValue(.unitVariant(session == nil ? "Disconnected" : "Connected"))
        self.chains = chains
        chainForwarder = TruAPIChainForwarder(nodes: chainNodes.map { TruAPIChainNode(genesis: $0.genesis, url: $0.url, onEvent: onEvent) },
                                              onEvent: onEvent)
        self.state = state
        self.permissions = permissions
        self.theme = TruAPICurrentValue(theme.value)
        self.preimagesDirectory = preimagesDirectory
        self.opener = opener
        self.notifier = notifier
        self.clock = clock ?? { truAPIWallClockMilliseconds() }
        self.onEvent = onEvent
    }

    /// Sets the theme every connection sees.
    public func setTheme(_ theme: TruAPITheme) {
        self.theme.update(theme.value)
        onEvent(.themeChanged(theme.description))
    }

    /// Arms the timers of notifications a previous run left pending (overdue ones are delivered now).
    public func resumePendingNotifications() {
        for notification in state.pendingNotifications { schedule(notification) }
    }

    /// Cancels the notification timers (the notifications stay pending in the state for the next run) and closes the
    /// connections to chain nodes.
    public func close() {
        chainForwarder.close()
        let timers = mutable.withLock { mutable in
            mutable.closed = true
            defer { mutable.timers = [:] }
            return Array(mutable.timers.values)
        }
        timers.forEach { $0.cancel() }
    }

    // MARK: - Notifications

    func send(text: String, deeplink: String?, scheduledAt: UInt64?) -> Result<SCALEValue, TruAPICallError> {
        let future = scheduledAt.map { $0 > clock() } ?? false
        switch state.addNotification(text: text, deeplink: deeplink, scheduledAt: scheduledAt, pendingUntilDelivered: future) {
        case .limitReached:
            return .failure(.domainV1(.unitVariant("ScheduleLimitReached")))
        case .failed(let reason):
            onEvent(.storageError(reason))
            return .failure(.domainUnknown(reason))
        case .added(let notification):
            if future {
                onEvent(.notificationScheduled(notification))
                schedule(notification)
            } else {
                deliver(notification)
            }
            return .success(.record(["id": .int(notification.id)]))
        }
    }

    func cancelNotification(_ id: UInt32) {
        let timer = mutable.withLock { $0.timers.removeValue(forKey: id) }
        timer?.cancel()
        let removed = state.removeNotification(id)
        onEvent(.notificationCancelled(id, wasPending: removed != nil))
    }

    private func schedule(_ notification: TruAPINotification) {
        let delay = (notification.scheduledAt ?? 0) > clock() ? (notification.scheduledAt ?? 0) - clock() : 0
        mutable.withLock { locked in
            guard !locked.closed else { return }
            locked.timers[notification.id] = Task { [self] in
                if delay > 0 {
                    do { try await Task.sleep(for: .milliseconds(Int64(clamping: delay))) } catch { return }
                }
                let due = mutable.withLock { $0.timers.removeValue(forKey: notification.id) != nil }
                guard due, state.removeNotification(notification.id) != nil else { return }
                deliver(notification)
            }
        }
    }

    private func deliver(_ notification: TruAPINotification) {
        onEvent(.notification(notification))
        notifier?(notification)
    }

    // MARK: - Preimages

    /// The value whose blake2b-256 is `key`, from the preimage directory; None (and a logged reason) otherwise.
    func preimage(for key: [UInt8]) -> [UInt8]? {
        guard let directory = preimagesDirectory else { return nil }
        guard key.count == 32 else {
            onEvent(.preimage(key, outcome: "not_a_blake2b_256_key"))
            return nil
        }
        let hex = Hex.encode(key)
        for name in [hex, "0x" + hex] {
            switch LocalFile.read(directory + "/" + name, limit: Self.maximumPreimageBytes) {
            case .success(let value):
                guard BLAKE2b.hash256(value) == key else {
                    onEvent(.preimage(key, outcome: "hash_mismatch"))
                    return nil
                }
                onEvent(.preimage(key, outcome: "found"))
                return value
            case .failure(.notFound):
                continue
            case .failure(let failure):
                onEvent(.preimage(key, outcome: "unreadable: \(failure)"))
                return nil
            }
        }
        onEvent(.preimage(key, outcome: "not_found"))
        return nil
    }

    // MARK: - Product ids

    /// Logs, once per id, a product that names another product than the bridge's (§12: the mismatch otherwise
    /// shows only as a refusal later).
    func noteProductID(_ requested: String?, method: String) {
        guard let requested, !productID.isDevelopmentWildcard, !productID.matches(requested) else { return }
        let first = mutable.withLock { mutable in
            mutable.reportedMismatches.count < 64 && mutable.reportedMismatches.insert(requested).inserted
        }
        if first { onEvent(.accountMismatch(requested: requested, product: productID, method: method)) }
    }
}

/// The host of one bridge connection (reference §6), over the bridge's shared context: with a session it is the
/// signing host (`TruAPISigningHost`); methods it does not handle itself get `TruAPIDefaultHost`'s answers.
public final class TruAPIBridgeHost: TruAPIHost {
    public let context: TruAPIBridgeContext
    public let connectionID: Int

    public init(context: TruAPIBridgeContext, connectionID: Int) {
        self.context = context
        self.connectionID = connectionID
    }

    private static func unit(_ name: String) -> TruAPICallError { .domainV1(.unitVariant(name)) }

    /// Methods answered by `respond` on a task, never at once: what may prompt, open a program, write state
    /// (navigation, permissions, storage writes and clears, notifications), sign or wait on a chain node.
    private static let answeredOnATask: Set<String> = [
        "system_navigate_to", "permissions_request_device_permission", "permissions_request_remote_permission",
        "local_storage_write", "local_storage_clear", "notifications_send_push_notification",
        "notifications_cancel_push_notification",
    ]

    private static func isAnsweredOnATask(_ method: String) -> Bool {
        answeredOnATask.contains(method) || TruAPISigningHost.methods.contains(method) || method.hasPrefix("chain_")
    }

    /// Everything cheap: answered on the connection's reading thread (nil for `isAnsweredOnATask` methods).
    public func immediateAnswer(to call: TruAPICall) -> Result<SCALEValue, TruAPICallError>? {
        guard !Self.isAnsweredOnATask(call.method.name) else { return nil }
        let request = call.request
        switch call.method.name {
        case "system_feature_supported":
            let genesis = request["genesis_hash"]?.bytesValue ?? []
            return .success(.record(["supported": .bool(context.chains.serves(genesis: genesis) || context.chainForwarder.serves(genesis: genesis))]))

        case "local_storage_read":
            let key = context.productID.storageKey(request["key"]?.stringValue ?? "")
            return .success(.record(["value": .option(context.state.read(key).map(SCALEValue.bytes))]))

        case "account_create_account_proof":
            // The pairing host answers a foreign key handle NotAllowlisted without asking anyone (the
            // exchanges.json vector); its own key needs ring-VRF, which is beyond this host.
            let owner = request["key_handle"]?["dot_ns_identifier"]?.stringValue
            context.noteProductID(owner, method: call.method.name)
            if let owner, !context.productID.isDevelopmentWildcard, !context.productID.matches(owner) {
                return .failure(Self.unit("NotAllowlisted"))
            }
            return .failure(.unsupported)

        case "account_get_account_alias", "account_ring_vrf_sign":
            context.noteProductID(request["key_handle"]?["dot_ns_identifier"]?.stringValue, method: call.method.name)
        default:
            break
        }
        return TruAPIDefaultHost.defaultAnswer(to: call, chains: context.chains)
    }

    public func respond(to call: TruAPICall) async -> Result<SCALEValue, TruAPICallError> {
        if let answer = immediateAnswer(to: call) { return answer }
        let request = call.request
        let state = context.state
        switch call.method.name {
        case "system_navigate_to":
            return await navigate(request["url"]?.stringValue ?? "")
        case "system_feature_supported":
            let genesis = request["genesis_hash"]?.bytesValue ?? []
            return .success(.record(["supported": .bool(context.chains.serves(genesis: genesis) || context.chainForwarder.serves(genesis: genesis))]))

        case "permissions_request_device_permission":
            guard let wire = request.variantName,
                  let name = TruAPIPermissionSubject.devicePermissions.first(where: { $0.wire == wire })?.name else {
                return .failure(.domainUnknown("unknown device permission"))
            }
            return .success(.record(["granted": .bool(await context.permissions.resolve([.device(name)]))]))

        case "permissions_request_remote_permission":
            let permission = request["permission"] ?? .unit
            let subjects: [TruAPIPermissionSubject]
            if permission.variantName == "Remote" {
                subjects = (permission["domains"]?.sequenceValue ?? []).compactMap { $0.stringValue.map { .domain($0.lowercased()) } }
            } else if let wire = permission.variantName,
                      let name = TruAPIPermissionSubject.remotePermissions.first(where: { $0.wire == wire })?.name {
                subjects = [.remote(name)]
            } else {
                return .failure(.domainUnknown("unknown remote permission"))
            }
            return .success(.record(["granted": .bool(await context.permissions.resolve(subjects))]))

        case "local_storage_write":
            let key = context.productID.storageKey(request["key"]?.stringValue ?? "")
            return storageAnswer(state.write(key, request["value"]?.bytesValue ?? []))
        case "local_storage_clear":
            return storageAnswer(state.clear(context.productID.storageKey(request["key"]?.stringValue ?? "")))

        case "notifications_send_push_notification":
            let deeplink = request["deeplink"]?.optionValue.flatMap { $0?.stringValue }
            let scheduled = request["scheduled_at"]?.optionValue.flatMap { $0?.integerValue }.map { UInt64(clamping: $0) }
            return context.send(text: request["text"]?.stringValue ?? "", deeplink: deeplink, scheduledAt: scheduled)
        case "notifications_cancel_push_notification":
            context.cancelNotification(UInt32(clamping: request["id"]?.integerValue ?? 0))
            return .success(.unit)

        case "account_get_account":
            context.noteProductID(request["product_account_id"]?["dot_ns_identifier"]?.stringValue, method: call.method.name)
        case "signing_sign_raw", "signing_sign_payload", "account_sign_vrf":
            context.noteProductID(request["account"]?["dot_ns_identifier"]?.stringValue, method: call.method.name)
        case "signing_create_transaction":
            context.noteProductID(request["signer"]?["dot_ns_identifier"]?.stringValue, method: call.method.name)
        default:
            break
        }
        if let answer = await TruAPISigningHost(context: context).respond(to: call) { return answer }
        if let answer = await context.chainForwarder.respond(to: call, connection: connectionID, permissions: context.permissions) {
            return answer
        }
        return TruAPIDefaultHost.defaultAnswer(to: call, chains: context.chains)
    }

    public func subscribe(to call: TruAPICall) async -> TruAPISubscription {
        switch call.method.name {
        case "account_connection_status_subscribe":
            return .stream(context.connectionStatus.stream())
        case "theme_subscribe":
            return .stream(context.theme.stream())
        case "preimage_lookup_subscribe":
            let value = context.preimage(for: call.request["key"]?.bytesValue ?? [])
            return .stream(truAPIOpenStream([.record(["value": .option(value.map(SCALEValue.bytes))])]))
        case "chain_follow_head_subscribe":
            return await context.chainForwarder.follow(connection: connectionID, requestID: call.requestID, request: call.request)
        default:
            return TruAPIDefaultHost.defaultSubscription(to: call)
        }
    }

    public func prepareSubscription(requestID: String, method: TruAPIMethod) {
        if method.name == "chain_follow_head_subscribe" { context.chainForwarder.prepareFollow(connection: connectionID, requestID: requestID) }
    }

    public func connectionClosed() { context.chainForwarder.forgetFollows(connection: connectionID) }

    private func storageAnswer(_ outcome: TruAPIStateOutcome) -> Result<SCALEValue, TruAPICallError> {
        switch outcome {
        case .done: return .success(.unit)
        case .full: return .failure(Self.unit("Full"))
        case .failed(let reason):
            context.onEvent(.storageError(reason))
            return .failure(.domainUnknown(reason))
        }
    }

    /// `parse_navigate` (§6): http(s) needs a `Remote { domains: [host] }` grant (checked, not asked for); dotNS
    /// names, localhost and hand-off schemes pass; then the URL is logged and, with an opener, opened.
    private func navigate(_ input: String) async -> Result<SCALEValue, TruAPICallError> {
        let url: String
        switch TruAPINavigation.classify(input) {
        case .invalid(let reason):
            return .failure(.domainUnknown(reason))
        case .needsGrant(let target, let host):
            guard await context.permissions.resolve([.domain(host)], mayPrompt: false) else {
                context.onEvent(.navigate(target, opened: false, problem: "no remote permission for \(host)"))
                return .failure(Self.unit("PermissionDenied"))
            }
            url = target
        case .allowed(let target):
            url = target
        }
        guard let opener = context.opener else {
            context.onEvent(.navigate(url, opened: false, problem: nil))
            return .success(.unit)
        }
        if let problem = await opener(url) {
            context.onEvent(.navigate(url, opened: false, problem: problem))
            return .failure(.domainUnknown(problem))
        }
        context.onEvent(.navigate(url, opened: true, problem: nil))
        return .success(.unit)
    }
}

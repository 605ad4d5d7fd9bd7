import FoundationEssentials
internal import Glibc
import OmniCLI
import OmniCandid
import OmniCodec
import OmniIC
import OmniSystem
import OmniTransport

extension IdentityProviderURL: ArgumentValue {
    public init?(argument: String) {
        guard let url = try? IdentityProviderURL(parsing: argument) else { return nil }
        self = url
    }

    public static var expectation: String { "an https URL such as https://identity.ic0.app (plain http only on 127.0.0.1, localhost or [::1])" }

    public static func problem(with text: String) -> String? {
        do throws(ICError) { _ = try IdentityProviderURL(parsing: text) } catch { return error.message }
        return nil
    }

    public var argumentText: String { text }
}

extension WebOrigin: ArgumentValue {
    public init?(argument: String) {
        guard let origin = try? WebOrigin(parsing: argument) else { return nil }
        self = origin
    }

    public static var expectation: String { "an origin: scheme://host[:port], e.g. https://abcde-aaaab-aaaaa-aaaaa-cai.icp0.io" }

    public static func problem(with text: String) -> String? {
        do throws(ICError) { _ = try WebOrigin(parsing: text) } catch { return error.message }
        return nil
    }

    public var argumentText: String { description }
}

/// `omni ic identity login NAME`: a delegated session from Internet Identity, through the browser.
enum ICIdentityLoginCommand {
    /// The page's port unless --listen says otherwise. Fixed because Internet Identity derives the principal from the
    /// page's origin, port included: another port is another principal.
    static let defaultPort: UInt16 = 53817

    static let name = Argument<String>("NAME", help: "The name to store the session under (use it with --identity NAME).")
    static let providerURL = DefaultedOption<IdentityProviderURL>(
        "ii-url", valueName: "URL", help: "The Internet Identity to log in with (a local one: http://127.0.0.1:PORT/?canisterId=…).",
        default: .mainnet)
    static let derivationOrigin = Option<WebOrigin>(
        "derivation-origin", valueName: "ORIGIN",
        help: "Ask for the principal of this origin instead of the page's (it must list the page's origin in its "
            + "/.well-known/ii-alternative-origins).")
    static let targets = RepeatedOption<PrincipalList>(
        "target", valueName: "CANISTER", help: "Ask for a session that may call only these canisters (the answer must match "
            + "exactly); commas separate several.")
    static let ttl = DefaultedOption<Duration>("ttl", valueName: "DURATION", help: "How long the session may sign (at most 30d).",
                                               default: .seconds(8 * 3600))
    static let listen = DefaultedOption<ListenAddress>(
        "listen", valueName: "HOST:PORT", help: "Loopback address of the login page; its origin decides the principal.",
        default: ListenAddress(HostPort(host: "127.0.0.1", port: defaultPort)))
    static let noOpen = Flag("no-open", help: "Do not start a browser; print the page's URL on stderr instead.")
    static let timeout = DefaultedOption<Duration>("timeout", valueName: "DURATION", help: "How long to wait for the answer.",
                                                   default: .seconds(300))
    static let force = Flag("force", help: "Replace an existing identity of the same name.")
    static let use = Flag("use", help: "Make it the default identity.")

    static let command = Command(
        "login", abstract: "Log in with Internet Identity in a browser and store the session as a named identity.",
        discussion: """
            omni makes a fresh Ed25519 session key and a one-time state token, serves a login page on 127.0.0.1 \
            and opens it with xdg-open (or prints its URL on stderr with --no-open or when there is no opener). \
            The page opens Internet Identity (--ii-url, with #authorize) and runs its client authentication \
            protocol: it answers authorize-ready with authorize-client (the session key, --ttl as maxTimeToLive, \
            --derivation-origin and --target when given) and accepts authorize-client-success only from the \
            provider's window and origin. It posts the answer back with the token; any other token is refused \
            with 403.

            Nothing is stored before the whole answer verifies: every delegation signed by the key before it \
            (Ed25519; ECDSA P-256 with the exact id-ecPublicKey/prime256v1 key and 64-byte r ‖ s signatures; \
            canister signatures certified under --root-key), none expired, at most 20, the last one to this \
            session's key, the targets exactly as requested (none unless asked) and no longer-lived than --ttl. \
            A refused answer exits 1 with the reason (delegation_chain, expired, target), a malformed one 3, \
            Internet Identity declining 4, no answer before --timeout 5, Ctrl-C 130. The session is stored like \
            'identity import --session' stores one (mode 0600), so --identity NAME signs with it everywhere \
            until it expires.

            Internet Identity gives each origin its own principal, and the page's origin is \
            http://HOST:PORT of --listen: the fixed default port keeps the principal the same from one login \
            to the next; another port, or localhost instead of 127.0.0.1, gives another principal. The output \
            says which origin the identity belongs to.
            """,
        options: [providerURL, derivationOrigin, targets, ttl, listen, noOpen, timeout, ICOfflineOptions.rootKey, force, use],
        arguments: [name],
        examples: [
            Example("omni ic identity login alice", "Log in with Internet Identity; the session lasts 8 hours."),
            Example("omni ic identity login ledger-bot --ttl 30d --target ryjl3-tyaaa-aaaaa-aaaba-cai --use",
                    "A 30-day session that may call only the ICP ledger, made the default."),
            Example("omni ic identity login dev --ii-url 'http://127.0.0.1:4943/?canisterId=rdmx6-jaaaa-aaaaa-aaadq-cai' --root-key @local-root.der --no-open",
                    "Against a local replica's Internet Identity; open the printed URL yourself."),
        ]
    ) { invocation in
        let identityName = try invocation.value(name)
        try IdentityStore.validate(name: identityName)
        let store = ICIdentityStore.open(invocation)
        let overwrite = try invocation.value(force)
        if !overwrite && store.contains(identityName) {
            throw ICError(.configuration, "an identity named \"\(identityName)\" already exists; add --force to replace it")
        }
        let makeDefault = try invocation.value(use)
        let requestedTargets = try invocation.value(targets).flatMap(\.principals)
        let lifetime = try invocation.value(ttl)
        guard lifetime.nanosecondsValue > 0, lifetime.nanosecondsValue <= IILoginRequest.maximumTimeToLive else {
            throw CLIError.usage("--ttl \(lifetime.argumentText) is outside 1ms … 30d (Internet Identity's longest session)",
                                 commandPath: invocation.commandPath)
        }
        let rootKey = try ICOfflineOptions.rootKey(invocation)
        let sessionKey = try ICIdentity.generate(.ed25519)
        guard let sessionPublicKey = sessionKey.publicKeyDER else { throw ICError(.internalFailure, "a new key has no public key") }
        let request = try IILoginRequest(provider: try invocation.value(providerURL), sessionPublicKey: sessionPublicKey,
                                         timeToLive: lifetime.nanosecondsValue, derivationOrigin: try invocation.value(derivationOrigin),
                                         targets: requestedTargets.isEmpty ? nil : requestedTargets)
        let waitLimit = try invocation.value(timeout)

        let address = try invocation.value(listen).address
        var configuration = HTTPServer.Configuration()
        configuration.addresses = [address.host]
        configuration.port = address.port
        configuration.maxConnections = 16
        configuration.maxRequestBodyBytes = IILoginEndpoint.maximumAnswerBytes
        configuration.shutdownGracePeriod = 1
        let server = try HTTPServer(configuration: configuration)
        do throws(TransportError) { try server.start() } catch {
            guard error.kind == .io else { throw error }
            throw TransportError(error.kind, "\(error.message); is another 'omni ic identity login' running? (another --listen port "
                                 + "gives another principal)")
        }
        defer { server.stop() }
        let listening = HostPort(host: address.host, port: server.port)
        let endpoint = IILoginEndpoint(
            request: request, sessionKey: sessionKey, token: IILoginStateToken(), listening: listening, rootKey: rootKey,
            store: { session throws(ICError) in
                try store.save(ICIdentity(session: session), as: identityName, overwrite: overwrite)
                if makeDefault { try store.setDefault(identityName) }
                return "identity \(identityName)"
            },
            events: { event in report(event, invocation) })
        endpoint.install(on: server)
        invocation.interrupts.onInterrupt { endpoint.cancel() }

        invocation.note("The identity will belong to the origin \(endpoint.pageOrigin): Internet Identity derives the principal from it"
                        + (request.derivationOrigin.map { " (asking for \($0)'s principal instead)" } ?? "") + ".")
        if address.port == 0 {
            invocation.warn("warning: --listen port 0 picks a new port each time, and with it a new principal; keep one port to keep the identity")
        }
        if try invocation.value(noOpen) {
            invocation.note("Open this URL in a browser to log in:\n  \(endpoint.pageURL)")
        } else {
            BrowserOpener.open(endpoint.pageURL, invocation: invocation, shownAs: endpoint.pageOrigin + "/")
        }
        invocation.note("Waiting for Internet Identity (\(request.provider.origin)) for up to \(waitLimit.argumentText); Ctrl-C cancels.")

        let outcome = endpoint.waitForOutcome(until: Date(timeIntervalSinceNow: waitLimit.secondsValue))
        server.stop()
        switch outcome {
        case nil where invocation.interrupts.isInterrupted:
            invocation.note("Login cancelled; nothing was stored.")
            return .success
        case nil:
            throw TransportError(.timeout, "no answer from the browser within \(waitLimit.argumentText); nothing was stored "
                                 + "(a longer --timeout gives more time)")
        case .refused(let error)?:
            throw error.labelled("Internet Identity's answer was refused, nothing was stored")
        case .providerRefused(let text)?:
            throw TransportError(.rejected, "Internet Identity did not log you in: \(text); nothing was stored")
        case .notStored(let error)?:
            throw error.labelled("the session verified but was not stored")
        case .loggedIn(let result)?:
            return .output(try output(result, name: identityName, request: request, origin: endpoint.pageOrigin, store: store))
        }
    }

    static func report(_ event: IILoginEvent, _ invocation: Invocation) {
        switch event {
        case .pageServed(let remote):
            invocation.detail("The browser loaded the login page (\(remote)).")
        case .refused(let status, let reason, let remote):
            invocation.warn("warning: refused a request from \(remote) (\(status)): \(reason)")
        case .ignoredMessages(let origins):
            invocation.note("The page ignored \(origins.count) message(s) not from the identity provider's window (from "
                            + Set(origins).sorted().joined(separator: ", ") + ").")
        }
    }

    static func output(_ result: IILoginResult, name: String, request: IILoginRequest, origin: String,
                       store: IdentityStore) throws -> ICReport {
        let session = result.session
        var json = JSONObject()
        json.append("name", .string(name))
        json.append("principal", .string(session.principal.text))
        json.append("origin", .string(origin))
        json.append("derivation_origin", request.derivationOrigin.map { .string($0.description) } ?? .null)
        json.append("identity_provider", .string(request.provider.text))
        json.append("provider_canister", result.providerCanister.map { .string($0.text) } ?? .null)
        json.append("authn_method", result.authenticationMethod.map { .string($0) } ?? .null)
        json.append("session_public_key", .string(Hex.encode(session.chain.sessionPublicKey)))
        json.append("delegations", .int(session.chain.delegations.count))
        ICTimeFields.add("expiration", session.expiration, to: &json)
        let granted = session.chain.effectiveTargets.map { $0.sorted() }
        json.append("targets", granted.map { .array($0.map { .string($0.text) }) } ?? .null)
        json.append("default", .bool(try store.defaultName() == name))
        json.append("directory", .string(store.directory))
        var report = ICReport(json: .object(json))
        report.line("principal", session.principal.text)
        report.line("stored as", name + " (use --identity \(name))")
        report.line("origin", origin + (request.derivationOrigin.map { " (principal of \($0))" } ?? "")
                    + "; log in from the same origin to get this principal again")
        report.line("expires", ICTime.format(session.expiration))
        report.line("targets", granted.map { $0.map(\.text).joined(separator: ", ") } ?? "any canister")
        if let canister = result.providerCanister { report.line("signed by", "canister \(canister)") }
        return report
    }
}

/// Starts the desktop's browser on a URL with `xdg-open`, without waiting for it: the URL is printed instead when
/// there is no `xdg-open`, and again (with a warning) when it fails. Its output goes to /dev/null.
enum BrowserOpener {
    static func open(_ url: String, invocation: Invocation, shownAs: String) {
        let pid: Int32
        switch ChildProcess.spawn(["xdg-open", url]) {
        case .success(let started): pid = started
        case .failure(let error):
            invocation.note("No browser opener (xdg-open: \(error.message)). Open this URL in a browser to log in:\n  \(url)")
            return
        }
        invocation.note("Opened the login page (\(shownAs)) in your browser.")
        Threads.start(name: "omni-xdg-open") {
            if let problem = ChildProcess.waitForExit(pid).problem {
                invocation.warn("warning: xdg-open could not open a browser (it \(problem)); open this URL to log in:\n  \(url)")
            }
        }
    }
}

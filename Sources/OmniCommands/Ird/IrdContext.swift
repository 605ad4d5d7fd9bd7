import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem
import OmniTransport

/// The options every networked `omni ird` command shares, and the one place they become an `IrdClient`.
enum IrdOptions {
    static let baseURL = Option<String>(
        "base-url", valueName: "URL", help: "The service's base URL.",
        absentMeans: "the document's first server", environment: "OMNI_IRD_BASE_URL", config: "ird.base_url", group: "Connection")
    static let apiKey = Option<String>(
        "api-key", valueName: "@FILE",
        help: "Read the API key (ird_…) from a file (0600) or '-' for stdin; never given on the command line itself.",
        absentMeans: "IRD_API_KEY, else the session stored by 'omni ird login'", completion: .file, group: "Connection")
    static let requestTimeout = DefaultedOption<Duration>(
        "request-timeout", valueName: "DURATION", help: "Timeout of each HTTP request.", default: .seconds(30),
        environment: "OMNI_IRD_REQUEST_TIMEOUT", config: "ird.request_timeout", group: "Connection")
    static let noValidate = Flag(
        "no-validate", help: "Send the request and print the answer without checking either against the document.",
        group: "Validation")
    static let checkDrift = Flag(
        "check-drift",
        help: "Report answer fields the document never mentions and values outside its enums on stderr; exit 1 when there are any.",
        group: "Validation")
    static let totp = Option<String>(
        "totp", valueName: "CODE",
        help: "Authenticator code for operations that ask for one (a short-lived code, so the command line is acceptable); "
            + "without it omni asks on a terminal when the service requires one.",
        group: "Connection")

    static let wait = Flag(
        "wait", help: "The answer is queued work: poll it (the operation the document links to) until it succeeded, failed or "
            + "was cancelled, and print the final state (exit 0, 1, 1).",
        group: "Waiting")
    static let pollInterval = DefaultedOption<Duration>(
        "poll-interval", valueName: "DURATION", help: "The first wait between polls; it doubles up to 8 s (or this, when longer).",
        default: .seconds(1), environment: "OMNI_IRD_POLL_INTERVAL", config: "ird.poll_interval", group: "Waiting")
    static let deadline = DefaultedOption<Duration>(
        "deadline", valueName: "DURATION", help: "How long to wait in all; past it omni stops waiting (exit 5), the work may still finish.",
        default: .seconds(120), environment: "OMNI_IRD_DEADLINE", config: "ird.deadline", group: "Waiting")
    static let waiting: [any OptionDeclaration] = [pollInterval, deadline]

    static func schedule(_ invocation: Invocation, deadline fallback: Duration? = nil) throws -> IrdPollSchedule {
        let initial = try invocation.value(pollInterval)
        let total = invocation.isGiven(deadline) || fallback == nil ? try invocation.value(deadline) : fallback!
        guard initial > .zero, total > .zero else {
            throw CLIError.usage("--poll-interval and --deadline must be more than zero", commandPath: invocation.commandPath)
        }
        return IrdPollSchedule(initial: initial, maximum: .seconds(8), deadline: total)
    }

    static let connection: [any OptionDeclaration] = [baseURL, apiKey, requestTimeout]
    /// Names a generated parameter flag may not take (ours, and the globals').
    static let reservedFlagNames: Set<String> = [
        "base-url", "api-key", "request-timeout", "no-validate", "check-drift", "totp", "all", "wait", "poll-interval", "deadline", "deny-domain", "allow-domain", "json", "field", "raw-field", "input",
        "help", "output", "quiet", "verbose", "no-input", "color", "config", "profile", "identity",
    ]

    /// The API key or session: `--api-key @FILE|-`, else `IRD_API_KEY`, else the stored session; nil when none.
    static func credential(_ invocation: Invocation) throws -> IrdCredential? {
        if let given = try invocation.value(apiKey) {
            if given == "-" {
                let text = try invocation.readText(.standardInput, label: "--api-key", limit: 1 << 16)
                return .apiKeyOrSession(try IrdCredential.token(from: text, label: "--api-key (stdin)"), source: .standardInput)
            }
            guard given.hasPrefix("@"), given.count > 1 else {
                throw CLIError.usage("--api-key takes @FILE or - (stdin), never the key itself: a key on the command line is "
                                     + "seen by every process on this machine and kept in shell history; put it in a file "
                                     + "(chmod 600) or set IRD_API_KEY", commandPath: invocation.commandPath)
            }
            let path = String(given.dropFirst())
            let bytes = try invocation.readSecret(.path(path), label: "--api-key", limit: 1 << 16)
            let text = try UTF8Validation.string(bytes)
            return .apiKeyOrSession(try IrdCredential.token(from: text, label: "--api-key file \(path)"), source: .file(path))
        }
        if let text = invocation.environment["IRD_API_KEY"], !text.isEmpty {
            return .apiKeyOrSession(try IrdCredential.token(from: text, label: "IRD_API_KEY"), source: .environment("IRD_API_KEY"))
        }
        let store = IrdSessionStore(directories: Directories(environment: invocation.environment))
        if let session = try store.read() {
            return IrdCredential(kind: .session, source: .storedSession(store.path), token: session.accessToken,
                                 expiresAt: session.expiresAt)
        }
        return nil
    }

    /// The base URL: the option (or its variable or config key), else the document's first server (a relative
    /// server is resolved against where the document was fetched from).
    static func baseURL(_ invocation: Invocation, document: IrdLoadedDocument?) throws -> String {
        if let given = try invocation.value(baseURL) { return try checkedURL(given, label: "--base-url") }
        guard let document else {
            throw IrdError(.noDocument, IrdDocumentLoader.howToGetOne(invocation.environment, needed: "the service's base URL"))
        }
        guard let server = document.document.servers.first else {
            throw IrdError(.configuration, "the OpenAPI document lists no servers: give the base URL with --base-url URL or OMNI_IRD_BASE_URL")
        }
        return try checkedURL(resolve(server, against: document.metadata?.source), label: "the document's server")
    }

    static func resolve(_ server: String, against source: String?) -> String {
        let lowered = server.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return server }
        guard let source, let scheme = source.firstRange(of: "://") else { return server }
        let afterScheme = source[scheme.upperBound...]
        let origin = source[..<(afterScheme.firstIndex(of: "/") ?? source.endIndex)]
        return String(origin) + (server.hasPrefix("/") ? server : "/" + server)
    }

    static func checkedURL(_ text: String, label: String) throws -> String {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            throw IrdError(.configuration, "\(label) '\(TerminalText.escaped(text))' is not an http:// or https:// URL")
        }
        return text
    }

    /// Everything a networked command needs that can be checked on this machine, then the client.
    /// Whose credential a client carries: the configured one, or none at all (device login never sends one).
    enum CredentialChoice { case configured, none }

    static func client(_ invocation: Invocation, document: IrdLoadedDocument?, validates: Bool = true,
                       credential choice: CredentialChoice = .configured) throws -> IrdClient {
        let credential = choice == .configured ? try credential(invocation) : nil
        let base = try baseURL(invocation, document: document)
        var logger: HTTPLogger?
        if invocation.verbose { logger = { line in invocation.detail("http " + line) } }
        let configuration = IrdClient.Configuration(
            baseURL: base, credential: credential, validates: validates, timeout: try invocation.value(requestTimeout),
            userAgent: "omni/\(VersionCommand.version)", logger: logger)
        return IrdClient(document: document?.document, configuration: configuration)
    }

    /// A cancellation flag that Ctrl-C sets.
    static func cancellation(_ invocation: Invocation) -> HTTPCancellation {
        let cancellation = HTTPCancellation()
        invocation.interrupts.onInterrupt { cancellation.cancel() }
        return cancellation
    }
}

/// A document as read for one run: where it came from and its operations named.
struct IrdLoadedDocument: Sendable {
    let document: OpenAPIDocument
    let metadata: IrdSpecCache.Metadata?
    let index: IrdOperationIndex
}

/// Finds the document for a run: the cached copy under `$XDG_CACHE_HOME/omni/ird/`. Commands are built from it
/// on every run (reading and indexing it takes milliseconds); `omni ird spec fetch` is what changes it.
enum IrdDocumentLoader {
    static func load(_ environment: [String: String]) -> Result<IrdLoadedDocument, IrdError>? {
        let cache = IrdSpecCache(directories: Directories(environment: environment))
        do {
            guard let (bytes, metadata) = try cache.load() else { return nil }
            let document: OpenAPIDocument
            do { document = try OpenAPIReader.read(bytes) } catch {
                return .failure(IrdError(error.kind, "the cached document \(cache.documentPath): \(error.message)", location: error.location,
                                         line: error.line, column: error.column))
            }
            let index = IrdOperationIndex(document: document, reservedNames: IrdCommands.builtinNames,
                                          reservedAreas: IrdCommands.reservedAreas)
            return .success(IrdLoadedDocument(document: document, metadata: metadata, index: index))
        } catch {
            return .failure(error)
        }
    }

    /// The loaded document, or an error that says how to get one.
    static func require(_ environment: [String: String]) throws -> IrdLoadedDocument {
        switch load(environment) {
        case .success(let loaded)?: return loaded
        case .failure(let error)?: throw error
        case nil: throw IrdError(.noDocument, howToGetOne(environment, needed: "its operations"))
        }
    }

    static func howToGetOne(_ environment: [String: String], needed: String) -> String {
        let cache = IrdSpecCache(directories: Directories(environment: environment))
        return "no ird OpenAPI document is cached (\(cache.documentPath)), so omni knows \(needed) from nothing: run "
            + "'omni ird spec fetch' (from \(IrdSpecSource.defaultURL); --spec FILE|URL or OMNI_IRD_SPEC for another copy)"
    }
}

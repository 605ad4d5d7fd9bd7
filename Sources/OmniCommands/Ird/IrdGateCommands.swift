import OmniCLI
import OmniCodec
import OmniIrd
import OmniSystem
import OmniTransport

/// The domain gate's options and the one place they become rules and a check, for generated commands and `api`.
enum IrdGate {
    static let deny = RepeatedOption<String>(
        "deny-domain", valueName: "PATTERN",
        help: "Refuse mutations of this domain (example.ro, or *.example.ro for it and every name under it); repeatable. Deny wins.",
        config: "ird.gate.deny", group: "Domain gate")
    static let allow = RepeatedOption<String>(
        "allow-domain", valueName: "PATTERN",
        help: "Allow mutations of only these domains (same patterns); repeatable. Without any, no allow-list applies.",
        config: "ird.gate.allow", group: "Domain gate")
    static let options: [any OptionDeclaration] = [deny, allow]

    /// The rules: the flags when given (each list on its own), else `[ird.gate] deny = […]`, `allow = […]` from the
    /// config file. `allow = []` in the config is an empty allow-list (nothing allowed), not an absent one.
    static func rules(_ invocation: Invocation) throws -> IrdDomainRules {
        let entries = try invocation.configuration.entries()
        func configured(_ key: String) throws -> [String]? {
            guard let value = entries[key] else { return nil }
            switch value {
            case .string(let text): return [text]
            case .array(let items):
                return try items.map { item in
                    guard case .string(let text) = item else {
                        throw CLIError(.configuration, "config key '\(key)' in \(invocation.configuration.path) must be a list of domain patterns (strings)")
                    }
                    return text
                }
            default:
                throw CLIError(.configuration, "config key '\(key)' in \(invocation.configuration.path) must be a list of domain patterns (strings)")
            }
        }
        let denied = invocation.isGiven(deny) ? try invocation.value(deny) : try configured("ird.gate.deny") ?? []
        let allowed = invocation.isGiven(allow) ? try invocation.value(allow) : try configured("ird.gate.allow")
        return try IrdDomainRules(deny: denied, allow: allowed)
    }

    static func store(_ invocation: Invocation) -> IrdRegistrationIndexStore {
        IrdRegistrationIndexStore(directories: Directories(environment: invocation.environment))
    }

    /// Refuses a gated mutation before it is sent (exit 6).
    static func check(_ invocation: Invocation, _ operation: Operation, _ input: IrdCallInput, client: IrdClient) throws {
        let rules = try rules(invocation)
        guard !rules.isEmpty else { return }
        try IrdGateResolver(rules: rules, client: client, store: store(invocation)).check(operation, input)
    }

    /// `omni ird api`: the operation the method and path match in the document, its path parameters read back
    /// from the concrete path; a mutation the document does not know cannot be checked (fails closed under an
    /// allow-list, like any unresolvable domain).
    static func checkRaw(_ invocation: Invocation, method: String, path: String, body: [UInt8]?, client: IrdClient) throws {
        let rules = try rules(invocation)
        guard !rules.isEmpty, IrdDomainGate.isMutation(method) else { return }
        guard let document = client.document, let operation = document.operation(method: method, path: path) else {
            if rules.allow != nil {
                throw IrdError(.domainGateRefused, "domain gate: \(method) \(path) refused: the document has no such operation, so the "
                               + "domain it touches cannot be known and an allow-list is set; nothing was sent", operation: "\(method) \(path)")
            }
            return
        }
        var input = IrdCallInput()
        let template = operation.path.split(separator: "/", omittingEmptySubsequences: false)
        let concrete = (path.split(separator: "?", maxSplits: 1).first ?? "").split(separator: "/", omittingEmptySubsequences: false)
        for (part, segment) in zip(template, concrete) where part.hasPrefix("{") && part.hasSuffix("}") {
            input.path[String(part.dropFirst().dropLast())] = PercentEncoding.decode(String(segment)) ?? String(segment)
        }
        if let body { input.body = try? JSONValue.parse(body) }
        try IrdGateResolver(rules: rules, client: client, store: store(invocation)).check(operation, input)
    }

    static let operationWords = VariadicArgument<String>(
        "OPERATION", help: "An operationId, 'AREA NAME' as in 'omni ird AREA NAME', or 'METHOD PATH' (POST /tunnels).")

    static let explain = Command(
        "explain", abstract: "Say whether the domain gate checks an operation, and where it finds the domain.",
        discussion: """
            A mutation (POST, PUT, PATCH, DELETE) is gated when a path parameter or a top-level body field names a \
            domain (domain, domain_name, hostname, fqdn, zone), when a path parameter is a registration id (resolved \
            through the registration index), or when the reviewed override table says one read finds it (a tunnel \
            by id). Reads are never gated. With no OPERATION, every gated operation of the document is listed.
            """,
        arguments: [operationWords]
    ) { invocation in
        let loaded = try IrdDocumentLoader.require(invocation.environment)
        let words = try invocation.value(operationWords)
        let document = loaded.document
        func describe(_ operation: Operation) -> JSONValue {
            var object = JSONObject()
            object["operation"] = .string(operation.display)
            if let id = operation.operationId { object["operation_id"] = .string(id) }
            let plan = IrdDomainGate.plan(operation, in: document)
            object["gated"] = .bool(plan != nil)
            let reasons: [String] = plan?.sources.map(\.explanation)
                ?? [IrdDomainGate.isMutation(operation.method) ? "no parameter or body field names a domain" : "a read: reads are never gated"]
            object["why"] = .array(reasons.map { .string($0) })
            return .object(object)
        }
        guard !words.isEmpty else {
            return .output(IrdAnswerOutput(value: .array(IrdDomainGate.plans(in: document).compactMap { plan in
                document.operations.first { $0.display == plan.operation }.map(describe)
            })))
        }
        guard let operation = find(words, loaded) else {
            throw CLIError.usage("no operation '\(TerminalText.escaped(words.joined(separator: " ")))' in the document (give an operationId, "
                                 + "'AREA NAME' or 'METHOD PATH')", commandPath: invocation.commandPath)
        }
        return .output(IrdAnswerOutput(value: describe(operation)))
    }

    static func find(_ words: [String], _ loaded: IrdLoadedDocument) -> Operation? {
        let document = loaded.document
        if words.count == 2, IrdDomainGate.isMutation(words[0]) || ["GET", "HEAD"].contains(words[0].uppercased()) {
            let method = words[0].uppercased()
            return document.operations.first { $0.method == method && $0.path == words[1] } ?? document.operation(method: method, path: words[1])
        }
        if words.count == 1 { return document.operation(id: words[0]) }
        if words.count == 2 { return loaded.index.area(named: words[0])?.entries.first { $0.name == words[1] }?.operation }
        return nil
    }

    static let refresh = Command(
        "refresh", abstract: "Rebuild the registration index the gate resolves registration ids with (one listing, every page).",
        discussion: """
            The index maps registration ids to domains for mutations that address a domain by registration id; it is \
            built on first use and kept in $XDG_CACHE_HOME/omni/ird/gate-index.json, per base URL. An id it does not \
            know rebuilds it once by itself.
            """,
        options: IrdOptions.connection
    ) { invocation in
        let loaded = try IrdDocumentLoader.require(invocation.environment)
        guard let listing = IrdGateResolver.registrationListing(in: loaded.document) else {
            throw IrdError(.invalidDocument, "no gated operation of the document addresses a domain by registration id: there is no index to build")
        }
        let client = try IrdOptions.client(invocation, document: loaded)
        let resolver = IrdGateResolver(rules: try IrdDomainRules(deny: [], allow: nil), client: client, store: store(invocation))
        let index = try resolver.buildIndex(listing: listing, document: loaded.document)
        var output = FieldList()
        output.add("registrations", .int(index.domains.count))
        output.add("listing", .string("GET " + listing))
        output.add("path", .string(resolver.store.path))
        return .output(output)
    }
}

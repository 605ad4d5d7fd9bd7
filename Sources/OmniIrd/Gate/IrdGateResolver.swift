import OmniCodec
import OmniSystem

/// The registration index: registration id → domain, built from the registrations listing on first use and kept
/// in `$XDG_CACHE_HOME/omni/ird/gate-index.json` (per base URL). An id it does not know rebuilds it once.
public struct IrdRegistrationIndexStore: Sendable {
    public let path: String

    public init(directories: Directories) { path = directories.cache + "/ird/gate-index.json" }
    public init(path: String) { self.path = path }

    public struct Index: Sendable, Equatable {
        public let baseURL: String
        public let builtAt: String
        public let domains: [String: String]

        public init(baseURL: String, builtAt: String, domains: [String: String]) {
            self.baseURL = baseURL
            self.builtAt = builtAt
            self.domains = domains
        }
    }

    public func read(baseURL: String) -> Index? {
        guard case .success(let bytes) = LocalFile.read(path, limit: 16 << 20), let json = try? JSONValue.parse(bytes),
              json["format"]?.stringValue == "omni-ird-gate-index", json["base_url"]?.stringValue == baseURL,
              let entries = json["registrations"]?.objectValue else { return nil }
        var domains: [String: String] = [:]
        for entry in entries { if let domain = entry.value.stringValue { domains[entry.key] = domain } }
        return Index(baseURL: baseURL, builtAt: json["built_at"]?.stringValue ?? "", domains: domains)
    }

    public func write(_ index: Index) throws(IrdError) {
        var object = JSONObject()
        object["format"] = "omni-ird-gate-index"
        object["version"] = 1
        object["base_url"] = .string(index.baseURL)
        object["built_at"] = .string(index.builtAt)
        object["registrations"] = .object(JSONObject(index.domains.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        do {
            try AtomicFile.write(JSONValue.object(object).serialized(pretty: true) + "\n", to: path, mode: 0o600,
                                 createDirectories: true, directoryMode: 0o700)
        } catch {
            throw IrdError(.configuration, "cannot write the domain gate's registration index \(path): \(error)")
        }
    }
}

/// Checks a mutation against the rules before it is sent: the domains its input names directly, then those only
/// the service can tell (a registration id through the index, a tunnel id with one read of the listing).
public struct IrdGateResolver {
    public let rules: IrdDomainRules
    public let client: IrdClient
    public let store: IrdRegistrationIndexStore

    public init(rules: IrdDomainRules, client: IrdClient, store: IrdRegistrationIndexStore) {
        self.rules = rules
        self.client = client
        self.store = store
    }

    /// Throws `domainGateRefused` naming the domain, the pattern and the operation; returns when the gate lets it through.
    public func check(_ operation: Operation, _ input: IrdCallInput) throws {
        guard !rules.isEmpty, let document = client.document, let plan = IrdDomainGate.plan(operation, in: document) else { return }
        let direct = IrdDomainGate.direct(plan, input)
        var domains: [String?] = direct.names
        if direct.missing { domains.append(nil) }
        for (source, value) in direct.pending {
            // Under a pure deny-list nothing resolved can change a refusal already found; still resolve, the check is cheap.
            domains.append(try resolve(source, value, document: document))
        }
        for domain in domains { try refuseUnlessAllowed(domain, plan: plan) }
    }

    func refuseUnlessAllowed(_ domain: String?, plan: IrdGatePlan) throws(IrdError) {
        switch rules.decide(domain) {
        case .allowed: return
        case .denied(let pattern):
            throw IrdError(.domainGateRefused, "domain gate: \(plan.operation) on \(IrdDomainRules.normalized(domain ?? "")) refused: it "
                           + "matches the deny pattern '\(pattern)'; nothing was sent", operation: plan.operation)
        case .notAllowed:
            let list = rules.allow ?? []
            throw IrdError(.domainGateRefused, "domain gate: \(plan.operation) on \(IrdDomainRules.normalized(domain ?? "")) refused: no "
                           + "allow pattern matches it (allowed: \(list.isEmpty ? "none" : list.joined(separator: ", "))); nothing was sent",
                           operation: plan.operation)
        case .unresolved:
            throw IrdError(.domainGateRefused, "domain gate: \(plan.operation) refused: the domain it touches cannot be resolved and "
                           + "an allow-list is set (it fails closed); nothing was sent", operation: plan.operation)
        }
    }

    func resolve(_ source: IrdGatePlan.Source, _ value: String, document: OpenAPIDocument) throws -> String? {
        switch source {
        case .registrationIndex(_, let listing):
            if let index = store.read(baseURL: client.configuration.baseURL), let domain = index.domains[value] { return domain }
            let rebuilt = try buildIndex(listing: listing, document: document)
            return rebuilt.domains[value]
        case .lookup(_, let listing, let field):
            guard let read = document.operation(method: "GET", path: listing) else { return nil }
            let answer = try client.call(read, IrdCallInput())
            let item = IrdDomainGate.items(of: answer.json ?? .null).first { $0["id"]?.stringValue == value }
            return item?[field]?.stringValue
        default:
            return nil
        }
    }

    /// Reads every page of the registrations listing and writes the index. Pages by cursor (`next_cursor`) or by
    /// limit/offset until a short page; at most 1000 pages.
    @discardableResult
    public func buildIndex(listing: String, document: OpenAPIDocument) throws -> IrdRegistrationIndexStore.Index {
        guard let read = document.operation(method: "GET", path: listing) else {
            throw IrdError(.invalidDocument, "the document has no GET \(listing) to build the domain gate's index from")
        }
        let names = Set(read.parameters(in: .query).map(\.name))
        var domains: [String: String] = [:]
        var input = IrdCallInput()
        var offset = 0
        for _ in 0..<1000 {
            let answer = try client.call(read, input)
            let json = answer.json ?? .null
            let items = IrdDomainGate.items(of: json)
            for item in items {
                if let id = item["id"]?.stringValue, let domain = item["domain"]?.stringValue { domains[id] = domain }
            }
            if let cursor = json["next_cursor"]?.stringValue, !cursor.isEmpty, names.contains("cursor") {
                input.query["cursor"] = [cursor]
                continue
            }
            guard names.contains("offset"), !items.isEmpty else { break }
            let limit = json["limit"]?.int64Value.map(Int.init) ?? items.count
            offset += items.count
            if items.count < limit { break }
            if let total = json["total"]?.int64Value, offset >= total { break }
            input.query["offset"] = [String(offset)]
        }
        let index = IrdRegistrationIndexStore.Index(baseURL: client.configuration.baseURL, builtAt: IrdSpecFetcher.now(), domains: domains)
        try store.write(index)
        return index
    }

    /// The listing the document's registration-id operations resolve through (for `gate refresh`).
    public static func registrationListing(in document: OpenAPIDocument) -> String? {
        for plan in IrdDomainGate.plans(in: document) {
            for source in plan.sources { if case .registrationIndex(_, let listing) = source { return listing } }
        }
        return nil
    }
}

import OmniCodec

/// Which operations the domain gate checks and where each finds its domain. Derived from the document: a
/// mutation (POST, PUT, PATCH, DELETE) is gated when a path parameter or a top-level body field names a domain
/// (`domain`, `hostname`, …), or a path parameter holds a registration id (resolved through the registration index);
/// `overrides` adds the few the document cannot show (a tunnel addressed by its id: one read of the listing first).
public struct IrdGatePlan: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case pathParameter(String)
        case bodyField(String)
        /// A registration id in this path parameter: the index from the registrations listing maps it to a domain.
        case registrationIndex(parameter: String, listing: String)
        /// One read first: the GET `listing`, the item whose `id` is this path parameter's value, its `field`.
        case lookup(parameter: String, listing: String, field: String)

        public var explanation: String {
            switch self {
            case .pathParameter(let name): "the path parameter '\(name)' names the domain"
            case .bodyField(let name): "the body field '\(name)' names the domain"
            case .registrationIndex(let name, let listing):
                "the path parameter '\(name)' is a registration id, resolved through the index of GET \(listing) ('omni ird gate refresh')"
            case .lookup(let name, let listing, let field):
                "the path parameter '\(name)' is an id: one read of GET \(listing) finds the item and its '\(field)' (reviewed override)"
            }
        }
    }

    /// `POST /tunnels`.
    public let operation: String
    public let sources: [Source]
}

public enum IrdDomainGate {
    /// Names of parameters and body fields whose value is a domain name.
    public static let domainNames: Set<String> = ["domain", "domain_name", "hostname", "fqdn", "zone"]
    /// Names of path parameters whose value is a registration id.
    public static let registrationIdNames: Set<String> = ["registration_id", "registrationId"]

    /// The reviewed override table: mutations whose domain only a read can tell. Keyed by method and the path's
    /// literal segments (`{…}` matches any parameter name), so renamed operations keep their entry.
    public struct Override: Sendable, Equatable {
        public let method: String
        /// `/tunnels/{}`.
        public let shape: String
        /// Where the listing's item keeps the domain.
        public let field: String
    }

    public static let overrides: [Override] = [
        Override(method: "DELETE", shape: "/tunnels/{}", field: "hostname"),
        Override(method: "PATCH", shape: "/tunnels/{}", field: "hostname"),
        Override(method: "DELETE", shape: "/claims/{}", field: "domain"),
        Override(method: "DELETE", shape: "/gateway/domains/{}", field: "domain"),
    ]

    public static func isMutation(_ method: String) -> Bool { ["POST", "PUT", "PATCH", "DELETE"].contains(method.uppercased()) }

    /// `/tunnels/{tunnel_id}` → `/tunnels/{}`.
    public static func shape(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("{") && $0.hasSuffix("}") ? "{}" : String($0) }.joined(separator: "/")
    }

    /// The gate's plan for an operation; nil when it is not gated (reads never are).
    public static func plan(_ operation: Operation, in document: OpenAPIDocument) -> IrdGatePlan? {
        guard isMutation(operation.method) else { return nil }
        var sources: [IrdGatePlan.Source] = []
        for parameter in operation.parameters(in: .path) {
            if domainNames.contains(parameter.name) {
                sources.append(.pathParameter(parameter.name))
            } else if registrationIdNames.contains(parameter.name), let listing = listing(above: parameter.name, of: operation, in: document) {
                sources.append(.registrationIndex(parameter: parameter.name, listing: listing))
            }
        }
        if let schema = operation.requestBody?.json?.schema {
            for name in topLevelFields(schema, document) where domainNames.contains(name) { sources.append(.bodyField(name)) }
        }
        let operationShape = shape(operation.path)
        if let entry = overrides.first(where: { $0.method == operation.method && $0.shape == operationShape }),
           let parameter = operation.parameters(in: .path).last,
           let listing = listing(above: parameter.name, of: operation, in: document) {
            sources.append(.lookup(parameter: parameter.name, listing: listing, field: entry.field))
        }
        return sources.isEmpty ? nil : IrdGatePlan(operation: operation.display, sources: sources)
    }

    /// Every gated operation of the document, in document order.
    public static func plans(in document: OpenAPIDocument) -> [IrdGatePlan] {
        document.operations.compactMap { plan($0, in: document) }
    }

    /// The GET path of the collection a path parameter indexes: `/registrations/{registration_id}/renew` →
    /// `/registrations`, when the document has that operation.
    static func listing(above parameter: String, of operation: Operation, in document: OpenAPIDocument) -> String? {
        guard let range = operation.path.firstRange(of: "/{" + parameter + "}") else { return nil }
        let parent = String(operation.path[..<range.lowerBound])
        return document.operations.contains { $0.method == "GET" && $0.path == parent } ? parent : nil
    }

    static func topLevelFields(_ ref: SchemaRef, _ document: OpenAPIDocument) -> [String] {
        var names: [String] = []
        var visited = Set<Int>()
        func visit(_ ref: SchemaRef) {
            guard visited.insert(ref.index).inserted else { return }
            let schema = document[ref]
            for property in schema.properties where !names.contains(property.name) { names.append(property.name) }
            (schema.allOf + schema.oneOf + schema.anyOf).forEach(visit)
        }
        visit(ref)
        return names
    }

    /// The domain names an operation's input gives directly (path parameters, body fields), and the sources that
    /// need the service (registration ids, lookups) with their values.
    public static func direct(_ plan: IrdGatePlan, _ input: IrdCallInput) -> (names: [String], pending: [(IrdGatePlan.Source, String)], missing: Bool) {
        var names: [String] = []
        var pending: [(IrdGatePlan.Source, String)] = []
        var missing = false
        for source in plan.sources {
            switch source {
            case .pathParameter(let name):
                if let value = input.path[name] { names.append(value) } else { missing = true }
            case .bodyField(let name):
                if let value = input.body?[name] {
                    if let text = value.stringValue { names.append(text) } else { missing = true }
                }
            case .registrationIndex(let name, _), .lookup(let name, _, _):
                if let value = input.path[name] { pending.append((source, value)) } else { missing = true }
            }
        }
        return (names, pending, missing)
    }

    /// The items of a listing answer: the first array of objects in it (`items`, `tunnels`, …), or the answer itself.
    public static func items(of answer: JSONValue) -> [JSONValue] {
        if let array = answer.arrayValue { return array }
        for entry in answer.objectValue?.entries ?? [] {
            if let array = entry.value.arrayValue, array.allSatisfy({ $0.objectValue != nil }) { return array }
        }
        return []
    }
}

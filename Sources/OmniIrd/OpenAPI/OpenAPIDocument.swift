import OmniCodec

/// The JSON types a schema may name (`type: integer`, or several in OpenAPI 3.1's `type: [string, "null"]`).
public enum JSONType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, integer, string
}

/// A schema in the document's schema table. `$ref`s become references to the same entry, so recursive schemas
/// are finite and nothing is ever expanded.
public struct SchemaRef: Hashable, Sendable {
    public let index: Int
}

/// One JSON Schema, as OpenAPI 3.0 and 3.1 use it, after `$ref` resolution.
public struct Schema: Sendable {
    public struct Property: Sendable {
        public let name: String
        public let schema: SchemaRef
    }

    public enum Additional: Sendable, Equatable {
        /// No `additionalProperties` keyword: other fields are allowed (and reported as drift in answers).
        case unspecified
        case allowed
        case forbidden
        case schema(SchemaRef)
    }

    /// Nil: any type.
    public var types: [JSONType]?
    /// OpenAPI 3.0's `nullable: true`, or `null` among 3.1's types.
    public var nullable = false
    public var enumValues: [JSONValue]?
    public var constValue: JSONValue?
    public var defaultValue: JSONValue?
    public var format: String?
    public var title: String?
    public var description: String?
    public var required: [String] = []
    public var properties: [Property] = []
    public var additionalProperties: Additional = .unspecified
    public var items: SchemaRef?
    public var allOf: [SchemaRef] = []
    public var anyOf: [SchemaRef] = []
    public var oneOf: [SchemaRef] = []
    public var not: SchemaRef?
    /// `discriminator.propertyName` and its mapping (value → schema), for choosing a `oneOf` branch.
    public var discriminator: String?
    public var discriminatorMapping: [String: SchemaRef] = [:]
    /// Number bounds kept as the document's number text (compared as decimals, never as floating point).
    public var minimum: String?
    public var maximum: String?
    public var exclusiveMinimum: String?
    public var exclusiveMaximum: String?
    public var minLength: Int?
    public var maxLength: Int?
    public var minItems: Int?
    public var maxItems: Int?
    public var pattern: String?
    public var readOnly = false
    public var writeOnly = false
    public var deprecated = false
    /// `components.schemas` name when this entry is one of them.
    public var componentName: String?
    /// Where it is in the document.
    public var path: JSONPath = .root

    public init() {}

    public func property(_ name: String) -> SchemaRef? { properties.first { $0.name == name }?.schema }
}

public enum ParameterLocation: String, Sendable, CaseIterable {
    case path, query, header, cookie
}

public struct Parameter: Sendable {
    public let name: String
    public let location: ParameterLocation
    public let required: Bool
    public let description: String?
    public let schema: SchemaRef?
    public let deprecated: Bool
    /// `explode` as the document gives it (form style explodes arrays by default).
    public let explode: Bool
}

public struct MediaType: Sendable {
    public let type: String
    public let schema: SchemaRef?
}

public struct RequestBody: Sendable {
    public let required: Bool
    public let description: String?
    public let content: [MediaType]

    /// The JSON media type (`application/json`, `application/problem+json`, `…+json`), if any.
    public var json: MediaType? { content.first { MediaType.isJSON($0.type) } }
}

extension MediaType {
    public static func isJSON(_ type: String) -> Bool {
        let lowered = type.lowercased().split(separator: ";").first.map(String.init) ?? ""
        return lowered == "application/json" || lowered.hasSuffix("+json")
    }
}

/// An OpenAPI `links` entry: how a value of this answer feeds another operation (a 202's action to its poll).
public struct Link: Sendable {
    public let name: String
    public let operationId: String?
    public let operationRef: String?
    /// Parameter name → runtime expression (`$response.body#/id`) or a constant, as JSON.
    public let parameters: [(name: String, value: JSONValue)]
    public let description: String?
}

public struct Response: Sendable {
    /// `200`, `2XX`, `default`.
    public let status: String
    public let description: String?
    public let content: [MediaType]
    public let headers: [(name: String, schema: SchemaRef?)]
    public let links: [Link]

    public var json: MediaType? { content.first { MediaType.isJSON($0.type) } }

    /// Whether this entry documents `code` (exactly, or as `2XX`).
    public func matches(_ code: Int) -> Bool {
        if status == String(code) { return true }
        let upper = status.uppercased()
        return upper.count == 3 && upper.hasSuffix("XX") && upper.first == String(code).first
    }
}

public struct SecurityScheme: Sendable {
    public enum Kind: String, Sendable { case apiKey, http, oauth2, openIdConnect, mutualTLS, unknown }
    public let name: String
    public let kind: Kind
    /// For `apiKey`: where and under which name.
    public let parameterName: String?
    public let location: ParameterLocation?
    /// For `http`: `bearer`, `basic`, …
    public let scheme: String?
}

public struct Operation: Sendable {
    public let operationId: String?
    /// Upper case: GET, POST, …
    public let method: String
    /// The path template (`/domains/{domain}`).
    public let path: String
    public let tags: [String]
    public let summary: String?
    public let description: String?
    public let deprecated: Bool
    /// Path-level parameters merged with the operation's own (the operation's win), in document order.
    public let parameters: [Parameter]
    public let requestBody: RequestBody?
    public let responses: [Response]
    /// The operation's own `security` (nil: the document's applies). `[]` means anonymous.
    public let security: [[String]]?
    public let location: JSONPath

    /// `POST /tunnels`: how messages name it.
    public var display: String { method + " " + path }

    /// The one success answer: the first 2xx response the document lists (202 means a queued action).
    public var success: Response? {
        responses.first { $0.status.first == "2" } ?? responses.first { $0.status == "default" }
    }

    public func parameters(in location: ParameterLocation) -> [Parameter] { parameters.filter { $0.location == location } }
}

/// A tag's name and description (the description becomes the area's help).
public struct Tag: Sendable {
    public let name: String
    public let description: String?
}

/// An OpenAPI 3.0/3.1 document after reading: operations, their parameters and bodies, and one schema table.
public final class OpenAPIDocument: Sendable {
    public let openapiVersion: String
    public let title: String
    public let version: String
    public let description: String?
    /// `servers[].url`, as written (may be relative to where the document came from).
    public let servers: [String]
    public let tags: [Tag]
    public let operations: [Operation]
    public let schemas: [Schema]
    public let componentSchemas: [(name: String, schema: SchemaRef)]
    public let securitySchemes: [SecurityScheme]
    /// The document's top-level `security` (nil when absent: no credential needed by default).
    public let security: [[String]]?

    init(openapiVersion: String, title: String, version: String, description: String?, servers: [String], tags: [Tag],
         operations: [Operation], schemas: [Schema], componentSchemas: [(name: String, schema: SchemaRef)],
         securitySchemes: [SecurityScheme], security: [[String]]?) {
        self.openapiVersion = openapiVersion
        self.title = title
        self.version = version
        self.description = description
        self.servers = servers
        self.tags = tags
        self.operations = operations
        self.schemas = schemas
        self.componentSchemas = componentSchemas
        self.securitySchemes = securitySchemes
        self.security = security
    }

    public subscript(ref: SchemaRef) -> Schema { schemas[ref.index] }

    public func operation(id: String) -> Operation? { operations.first { $0.operationId == id } }

    public func securityScheme(named name: String) -> SecurityScheme? { securitySchemes.first { $0.name == name } }

    /// The security requirements that apply to `operation`: each alternative is a list of scheme names; an empty
    /// alternative means "no credential". Empty overall: anonymous.
    public func security(of operation: Operation) -> [[String]] { operation.security ?? security ?? [] }

    /// True when the operation is anonymous: it must be sent without any credential (device login, say).
    public func isAnonymous(_ operation: Operation) -> Bool { security(of: operation).isEmpty }

    /// True when a credential may be sent but is not needed (an empty alternative next to others).
    public func credentialIsOptional(_ operation: Operation) -> Bool {
        let requirements = security(of: operation)
        return requirements.isEmpty || requirements.contains { $0.isEmpty }
    }

    /// The operation matching a concrete method and path (`GET /domains/x.ro` → `GET /domains/{domain}`): literal
    /// segments must match, templated ones take any single segment; the most literal template wins.
    public func operation(method: String, path: String) -> Operation? {
        let segments = path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/", omittingEmptySubsequences: false) } ?? []
        var best: (Operation, Int)?
        for operation in operations where operation.method == method.uppercased() {
            let template = operation.path.split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == segments.count else { continue }
            var literal = 0
            var matches = true
            for (part, segment) in zip(template, segments) {
                if part.hasPrefix("{") && part.hasSuffix("}") { if segment.isEmpty { matches = false; break } ; continue }
                if part != segment { matches = false; break }
                literal += 1
            }
            if matches, literal > (best?.1 ?? -1) { best = (operation, literal) }
        }
        return best?.0
    }
}

import OmniCodec

/// What reading an untrusted OpenAPI document may cost. Exceeding a limit is an `invalidDocument` error naming it.
/// Schemas and references are capped where their measured cost stays under 64 MiB (docs/security.md, Limits): 100 000
/// schemas cost 70 MiB and 250 000 references 97 MiB; a real document has a few thousand of either.
public struct OpenAPILimits: Sendable {
    public var maxBytes: Int
    public var maxDepth: Int
    /// Schema entries the table may hold (each object schema met once, `$ref`s shared).
    public var maxSchemas: Int
    /// `$ref`s followed in total, across schemas, parameters, responses and links.
    public var maxReferenceResolutions: Int
    public var maxOperations: Int

    public init(maxBytes: Int = 32 << 20, maxDepth: Int = 128, maxSchemas: Int = 50_000,
                maxReferenceResolutions: Int = 100_000, maxOperations: Int = 10_000) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxSchemas = maxSchemas
        self.maxReferenceResolutions = maxReferenceResolutions
        self.maxOperations = maxOperations
    }

    public static let `default` = OpenAPILimits()
}

/// Reads OpenAPI 3.0 and 3.1 JSON documents: local `$ref`s (cycles of references refused, recursive schemas kept
/// finite), schemas, parameters, request bodies, responses, links, tags, operation ids and security. Every error
/// names the JSON path and, when the text is at hand, the line and column.
public enum OpenAPIReader {
    public static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    public static func read(_ bytes: [UInt8], limits: OpenAPILimits = .default) throws(IrdError) -> OpenAPIDocument {
        guard bytes.count <= limits.maxBytes else {
            throw IrdError(.invalidDocument, "OpenAPI document: \(bytes.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes, limits: JSONLimits(maxDepth: limits.maxDepth, maxBytes: limits.maxBytes))
        } catch {
            throw IrdError.codec(error, what: "OpenAPI document")
        }
        let reader = DocumentReader(root: root, locator: JSONLocator(bytes), limits: limits)
        return try reader.read()
    }
}

/// A parameter's identity: its name and where it goes.
private struct ParameterKey: Hashable {
    let name: String
    let location: ParameterLocation
}

private final class DocumentReader {
    let root: JSONValue
    let locator: JSONLocator
    let limits: OpenAPILimits
    var schemas: [Schema] = []
    var memo: [JSONPath: SchemaRef] = [:]
    var resolving: [JSONPath] = []
    var references = 0
    /// Schemas being read inside one another, `$ref`s followed included: a chain of references nests the reading
    /// as deeply as JSON nesting does, but its paths stay short, so the path length alone did not bound it (a
    /// chain of 300 overflowed a test thread's stack).
    var schemaDepth = 0

    init(root: JSONValue, locator: JSONLocator, limits: OpenAPILimits) {
        self.root = root
        self.locator = locator
        self.limits = limits
    }

    func fail(_ message: String, _ path: JSONPath) -> IrdError {
        let position = locator.position(of: path)
        return IrdError(.invalidDocument, "OpenAPI document: " + message, location: path.description,
                        line: position?.line, column: position?.column)
    }

    /// Members of the wide objects `$ref`s pass through, by key. A `JSONObject` lookup is a linear search, so 50 000
    /// references into 50 000 schemas cost 2.5 billion key comparisons before.
    private var memberIndexes: [JSONPath: [ExactText: JSONValue]] = [:]

    func value(at path: JSONPath) -> JSONValue? {
        var current = root
        var walked = JSONPath.root
        for component in path.components {
            switch component {
            case .key(let key):
                guard let object = current.objectValue else { return nil }
                if object.count <= 16 {
                    guard let next = object[key] else { return nil }
                    current = next
                } else {
                    if memberIndexes[walked] == nil {
                        var index: [ExactText: JSONValue] = Dictionary(minimumCapacity: object.count)
                        for (name, value) in object where index[ExactText(name)] == nil { index[ExactText(name)] = value }
                        memberIndexes[walked] = index
                    }
                    guard let next = memberIndexes[walked]?[ExactText(key)] else { return nil }
                    current = next
                }
                walked = walked + key
            case .index(let index):
                guard let array = current.arrayValue, array.indices.contains(index) else { return nil }
                current = array[index]
                walked = walked + index
            }
        }
        return current
    }

    // MARK: Typed field access

    func object(_ value: JSONValue, _ path: JSONPath, _ what: String) throws(IrdError) -> JSONObject {
        guard let object = value.objectValue else { throw fail("\(what) must be an object", path) }
        return object
    }

    func string(_ object: JSONObject, _ key: String, _ path: JSONPath, required: Bool = false) throws(IrdError) -> String? {
        guard let value = object[key] else {
            if required { throw fail("'\(key)' is required", path) }
            return nil
        }
        guard let text = value.stringValue else { throw fail("'\(key)' must be a string", path + key) }
        return text
    }

    func bool(_ object: JSONObject, _ key: String, _ path: JSONPath) throws(IrdError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let flag = value.boolValue else { throw fail("'\(key)' must be true or false", path + key) }
        return flag
    }

    func integer(_ object: JSONObject, _ key: String, _ path: JSONPath) throws(IrdError) -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.int64Value, number >= 0, let int = Int(exactly: number) else {
            throw fail("'\(key)' must be a non-negative integer", path + key)
        }
        return int
    }

    func number(_ object: JSONObject, _ key: String, _ path: JSONPath) throws(IrdError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.numberText else { throw fail("'\(key)' must be a number", path + key) }
        return text
    }

    /// Follows `$ref`s of a non-schema object (parameter, response, body, link, header, scheme) to the object itself.
    func resolved(_ value: JSONValue, _ path: JSONPath, _ what: String) throws(IrdError) -> (JSONObject, JSONPath) {
        var current = value
        var currentPath = path
        var seen: [JSONPath] = [], seenSet = Set<JSONPath>()  // the list names a cycle; the set finds one
        while let object = current.objectValue, let reference = object["$ref"] {
            references += 1
            guard references <= limits.maxReferenceResolutions else {
                throw fail("more than \(limits.maxReferenceResolutions) $ref resolutions (the reference budget)", currentPath)
            }
            let (target, targetPath) = try follow(reference, currentPath + "$ref")
            if !seenSet.insert(targetPath).inserted {
                throw fail("$ref cycle: " + (seen + [targetPath]).map(\.description).joined(separator: " → "), currentPath)
            }
            seen.append(targetPath)
            current = target
            currentPath = targetPath
        }
        return (try object(current, currentPath, what), currentPath)
    }

    func follow(_ reference: JSONValue, _ path: JSONPath) throws(IrdError) -> (JSONValue, JSONPath) {
        guard let text = reference.stringValue else { throw fail("$ref must be a string", path) }
        guard let target = JSONPath(pointer: text) else {
            throw fail("only local references (#/…) are supported, not '\(text)'", path)
        }
        guard let value = value(at: target) else { throw fail("$ref '\(text)' points to nothing in the document", path) }
        return (value, target)
    }

    // MARK: Schemas

    func schema(_ value: JSONValue, _ path: JSONPath) throws(IrdError) -> SchemaRef {
        if let known = memo[path] { return known }
        schemaDepth += 1
        defer { schemaDepth -= 1 }
        guard schemaDepth <= limits.maxDepth else {
            throw fail("schemas nested deeper than \(limits.maxDepth), counting the $refs followed", path)
        }
        if let flag = value.boolValue {
            var schema = Schema()
            schema.path = path
            if !flag { schema.types = [] }
            return try allocate(schema, path)
        }
        let object = try object(value, path, "a schema")
        if let reference = object["$ref"] {
            references += 1
            guard references <= limits.maxReferenceResolutions else {
                throw fail("more than \(limits.maxReferenceResolutions) $ref resolutions (the reference budget)", path)
            }
            let (target, targetPath) = try follow(reference, path + "$ref")
            let structural = object.keys.filter { !["$ref", "description", "summary", "title", "example", "examples"].contains($0) }
            if structural.isEmpty {
                if resolving.contains(path) {
                    let cycle = resolving.drop { $0 != path } + [path]
                    throw fail("$ref cycle: " + cycle.map(\.description).joined(separator: " → "), path)
                }
                resolving.append(path)
                defer { resolving.removeLast() }
                let resolved = try schema(target, targetPath)
                memo[path] = resolved
                return resolved
            }
        }
        guard path.components.count <= limits.maxDepth else { throw fail("schemas nested deeper than \(limits.maxDepth)", path) }
        var schema = Schema()
        schema.path = path
        let ref = try allocate(schema, path)
        try fill(&schema, object, path)
        schemas[ref.index] = schema
        return ref
    }

    /// The one place a schema enters the table, so the limit holds for every kind (boolean schemas bypassed it
    /// when the check stood beside the object case: found by fuzzing `openapi`).
    private func allocate(_ schema: Schema, _ path: JSONPath) throws(IrdError) -> SchemaRef {
        guard schemas.count < limits.maxSchemas else {
            throw fail("more than \(limits.maxSchemas) schemas (the schema limit)", path)
        }
        let ref = SchemaRef(index: schemas.count)
        schemas.append(schema)
        memo[path] = ref
        return ref
    }

    private func fill(_ schema: inout Schema, _ object: JSONObject, _ path: JSONPath) throws(IrdError) {
        if let type = object["type"] {
            var names: [String] = []
            if let single = type.stringValue { names = [single] }
            else if let many = type.arrayValue, many.allSatisfy({ $0.stringValue != nil }) { names = many.compactMap(\.stringValue) }
            else { throw fail("'type' must be a string or an array of strings", path + "type") }
            var types: [JSONType] = []
            for name in names {
                guard let type = JSONType(rawValue: name) else {
                    throw fail("unknown type '\(name)' (expected one of \(JSONType.allCases.map(\.rawValue).joined(separator: ", ")))", path + "type")
                }
                if type == .null { schema.nullable = true }
                types.append(type)
            }
            schema.types = types
        }
        if try bool(object, "nullable", path) == true {
            schema.nullable = true
            if schema.types != nil, !(schema.types!.contains(.null)) { schema.types!.append(.null) }
        }
        if let values = object["enum"] {
            guard let array = values.arrayValue else { throw fail("'enum' must be an array", path + "enum") }
            schema.enumValues = array
        }
        schema.constValue = object["const"]
        schema.defaultValue = object["default"]
        schema.format = try string(object, "format", path)
        schema.title = try string(object, "title", path)
        schema.description = try string(object, "description", path)
        schema.pattern = try string(object, "pattern", path)
        if let required = object["required"] {
            guard let names = required.arrayValue?.compactMap(\.stringValue), names.count == required.arrayValue?.count else {
                throw fail("'required' must be an array of strings", path + "required")
            }
            schema.required = names
        }
        if let properties = object["properties"] {
            let members = try self.object(properties, path + "properties", "'properties'")
            for (name, value) in members {
                schema.properties.append(.init(name: name, schema: try self.schema(value, path + "properties" + name)))
            }
        }
        if let additional = object["additionalProperties"] {
            if let flag = additional.boolValue { schema.additionalProperties = flag ? .allowed : .forbidden }
            else { schema.additionalProperties = .schema(try self.schema(additional, path + "additionalProperties")) }
        }
        if let items = object["items"] {
            guard items.arrayValue == nil else { throw fail("'items' as an array (tuple form) is not supported; use prefixItems", path + "items") }
            schema.items = try self.schema(items, path + "items")
        }
        for (keyword, keyPath) in [("allOf", \Schema.allOf), ("anyOf", \Schema.anyOf), ("oneOf", \Schema.oneOf)] {
            guard let list = object[keyword] else { continue }
            guard let array = list.arrayValue, !array.isEmpty else { throw fail("'\(keyword)' must be a non-empty array", path + keyword) }
            var refs: [SchemaRef] = []
            for (index, item) in array.enumerated() { refs.append(try self.schema(item, path + keyword + index)) }
            schema[keyPath: keyPath] = refs
        }
        if let reference = object["$ref"] {
            // 3.1 allows keywords beside $ref: the reference applies as one more allOf branch.
            let (target, targetPath) = try follow(reference, path + "$ref")
            schema.allOf.append(try self.schema(target, targetPath))
        }
        if let not = object["not"] { schema.not = try self.schema(not, path + "not") }
        if let discriminator = object["discriminator"] {
            let members = try self.object(discriminator, path + "discriminator", "'discriminator'")
            schema.discriminator = try string(members, "propertyName", path + "discriminator", required: true)
            if let mapping = members["mapping"] {
                for (value, target) in try self.object(mapping, path + "discriminator" + "mapping", "'mapping'") {
                    guard let text = target.stringValue else { throw fail("a mapping entry must be a string", path + "discriminator" + "mapping" + value) }
                    let pointer = text.hasPrefix("#") ? text : "#/components/schemas/" + text
                    let (targetValue, targetPath) = try follow(.string(pointer), path + "discriminator" + "mapping" + value)
                    schema.discriminatorMapping[value] = try self.schema(targetValue, targetPath)
                }
            }
        }
        schema.minimum = try number(object, "minimum", path)
        schema.maximum = try number(object, "maximum", path)
        for (keyword, bound) in [("exclusiveMinimum", schema.minimum), ("exclusiveMaximum", schema.maximum)] {
            guard let value = object[keyword] else { continue }
            var text: String?
            if let flag = value.boolValue { text = flag ? bound : nil }   // 3.0: a flag on minimum/maximum
            else if let number = value.numberText { text = number }     // 3.1: the bound itself
            else { throw fail("'\(keyword)' must be a number or a boolean", path + keyword) }
            if keyword == "exclusiveMinimum" { schema.exclusiveMinimum = text } else { schema.exclusiveMaximum = text }
        }
        schema.minLength = try integer(object, "minLength", path)
        schema.maxLength = try integer(object, "maxLength", path)
        schema.minItems = try integer(object, "minItems", path)
        schema.maxItems = try integer(object, "maxItems", path)
        schema.readOnly = try bool(object, "readOnly", path) ?? false
        schema.writeOnly = try bool(object, "writeOnly", path) ?? false
        schema.deprecated = try bool(object, "deprecated", path) ?? false
    }

    /// `allOf`/`anyOf`/`oneOf`/`not` that lead back to the same schema would make validation loop forever.
    func checkApplicatorCycles() throws(IrdError) {
        var state = [UInt8](repeating: 0, count: schemas.count)   // 0 new, 1 on the stack, 2 done
        for start in schemas.indices where state[start] == 0 {
            var stack: [(Int, Int)] = [(start, 0)]
            state[start] = 1
            while let (node, next) = stack.last {
                let schema = schemas[node]
                let edges = schema.allOf + schema.anyOf + schema.oneOf + (schema.not.map { [$0] } ?? [])
                if next < edges.count {
                    stack[stack.count - 1].1 += 1
                    let target = edges[next].index
                    if state[target] == 1 {
                        throw fail("schema cycle through allOf/anyOf/oneOf/not: validation would never end", schemas[target].path)
                    }
                    if state[target] == 0 { state[target] = 1; stack.append((target, 0)) }
                } else {
                    state[node] = 2
                    stack.removeLast()
                }
            }
        }
    }

    // MARK: The document

    func read() throws(IrdError) -> OpenAPIDocument {
        let top = try object(root, .root, "the document")
        guard let version = try string(top, "openapi", .root) else {
            throw fail(top["swagger"] != nil ? "Swagger 2.0 is not supported (OpenAPI 3.0 or 3.1 is)" : "'openapi' is required", .root)
        }
        guard version.hasPrefix("3.0") || version.hasPrefix("3.1") else {
            throw fail("OpenAPI \(version) is not supported (3.0 and 3.1 are)", JSONPath.root + "openapi")
        }
        guard let infoValue = top["info"] else { throw fail("'info' is required", .root) }
        let info = try object(infoValue, JSONPath.root + "info", "'info'")
        let title = try string(info, "title", JSONPath.root + "info", required: true) ?? ""
        let apiVersion = try string(info, "version", JSONPath.root + "info", required: true) ?? ""
        let description = try string(info, "description", JSONPath.root + "info")

        var servers: [String] = []
        if let list = top["servers"] {
            guard let array = list.arrayValue else { throw fail("'servers' must be an array", JSONPath.root + "servers") }
            for (index, item) in array.enumerated() {
                let server = try object(item, JSONPath.root + "servers" + index, "a server")
                if let url = try string(server, "url", JSONPath.root + "servers" + index, required: true) { servers.append(url) }
            }
        }
        var tags: [Tag] = []
        if let list = top["tags"] {
            guard let array = list.arrayValue else { throw fail("'tags' must be an array", JSONPath.root + "tags") }
            for (index, item) in array.enumerated() {
                let path = JSONPath.root + "tags" + index
                let tag = try object(item, path, "a tag")
                tags.append(Tag(name: try string(tag, "name", path, required: true) ?? "", description: try string(tag, "description", path)))
            }
        }

        let components = try top["components"].map { value throws(IrdError) in try object(value, JSONPath.root + "components", "'components'") }
        var schemes: [SecurityScheme] = []
        if let list = components?["securitySchemes"] {
            let base = JSONPath.root + "components" + "securitySchemes"
            for (name, value) in try object(list, base, "'securitySchemes'") {
                let (scheme, path) = try resolved(value, base + name, "a security scheme")
                let type = try string(scheme, "type", path, required: true) ?? ""
                let location = try string(scheme, "in", path).map { text throws(IrdError) -> ParameterLocation in
                    guard let location = ParameterLocation(rawValue: text) else { throw fail("unknown 'in' value '\(text)'", path + "in") }
                    return location
                }
                schemes.append(SecurityScheme(name: name, kind: SecurityScheme.Kind(rawValue: type) ?? .unknown,
                                              parameterName: try string(scheme, "name", path), location: location,
                                              scheme: try string(scheme, "scheme", path)?.lowercased()))
            }
        }
        var componentSchemas: [(name: String, schema: SchemaRef)] = []
        if let list = components?["schemas"] {
            let base = JSONPath.root + "components" + "schemas"
            for (name, value) in try object(list, base, "'schemas'") {
                let ref = try schema(value, base + name)
                if schemas[ref.index].componentName == nil, schemas[ref.index].path == base + name { schemas[ref.index].componentName = name }
                componentSchemas.append((name, ref))
            }
        }
        let security = try securityRequirements(top["security"], JSONPath.root + "security", schemes: schemes)

        guard let pathsValue = top["paths"] else { throw fail("'paths' is required", .root) }
        var operations: [Operation] = []
        var seenIds: [String: JSONPath] = [:]
        for (template, itemValue) in try object(pathsValue, JSONPath.root + "paths", "'paths'") {
            let itemPath = JSONPath.root + "paths" + template
            guard template.hasPrefix("/") else { throw fail("a path must start with '/'", itemPath) }
            let (item, resolvedItemPath) = try resolved(itemValue, itemPath, "a path item")
            let shared = try parameters(item["parameters"], resolvedItemPath + "parameters")
            for method in OpenAPIReader.methods {
                guard let operationValue = item[method] else { continue }
                let path = resolvedItemPath + method
                let operation = try self.operation(operationValue, path, method: method, template: template, shared: shared, schemes: schemes)
                if let id = operation.operationId {
                    if let first = seenIds[id] { throw fail("operationId '\(id)' is used twice (first at \(first))", path + "operationId") }
                    seenIds[id] = path
                }
                operations.append(operation)
                guard operations.count <= limits.maxOperations else {
                    throw fail("more than \(limits.maxOperations) operations (the operation limit)", path)
                }
            }
        }
        for operation in operations {
            for (index, response) in operation.responses.enumerated() {
                for link in response.links {
                    if let target = link.operationId, seenIds[target] == nil {
                        throw fail("link '\(link.name)' names operationId '\(target)', which no operation has",
                                   operation.location + "responses" + response.status + "links" + link.name)
                    }
                    _ = index
                }
            }
        }
        try checkApplicatorCycles()
        return OpenAPIDocument(openapiVersion: version, title: title, version: apiVersion, description: description,
                               servers: servers, tags: tags, operations: operations, schemas: schemas,
                               componentSchemas: componentSchemas, securitySchemes: schemes, security: security)
    }

    func securityRequirements(_ value: JSONValue?, _ path: JSONPath, schemes: [SecurityScheme]) throws(IrdError) -> [[String]]? {
        guard let value else { return nil }
        guard let array = value.arrayValue else { throw fail("'security' must be an array", path) }
        var result: [[String]] = []
        let schemeNames = Set(schemes.map(\.name))
        for (index, item) in array.enumerated() {
            let requirement = try object(item, path + index, "a security requirement")
            for name in requirement.keys where !schemeNames.contains(name) {
                throw fail("security scheme '\(name)' is not defined in components.securitySchemes", path + index + name)
            }
            result.append(requirement.keys)
        }
        return result
    }

    func parameters(_ value: JSONValue?, _ path: JSONPath) throws(IrdError) -> [Parameter] {
        guard let value else { return [] }
        guard let array = value.arrayValue else { throw fail("'parameters' must be an array", path) }
        var result: [Parameter] = []
        var declared = Set<ParameterKey>()
        for (index, item) in array.enumerated() {
            let (parameter, at) = try resolved(item, path + index, "a parameter")
            let name = try string(parameter, "name", at, required: true) ?? ""
            let place = try string(parameter, "in", at, required: true) ?? ""
            guard let location = ParameterLocation(rawValue: place) else {
                throw fail("unknown parameter location '\(place)' (path, query, header or cookie)", at + "in")
            }
            let required = try bool(parameter, "required", at) ?? false
            if location == .path && !required { throw fail("path parameter '\(name)' must have required: true", at) }
            var schema: SchemaRef?
            if let value = parameter["schema"] { schema = try self.schema(value, at + "schema") }
            else if let content = parameter["content"] {
                let media = try object(content, at + "content", "'content'")
                if let (type, value) = media.entries.first, let inner = value.objectValue?["schema"] {
                    schema = try self.schema(inner, at + "content" + type + "schema")
                }
            }
            if !declared.insert(ParameterKey(name: name, location: location)).inserted {
                throw fail("parameter '\(name)' in \(place) is declared twice", at)
            }
            result.append(Parameter(name: name, location: location, required: required,
                                    description: try string(parameter, "description", at), schema: schema,
                                    deprecated: try bool(parameter, "deprecated", at) ?? false,
                                    explode: try bool(parameter, "explode", at) ?? (location == .query || location == .cookie)))
        }
        return result
    }

    func content(_ value: JSONValue?, _ path: JSONPath) throws(IrdError) -> [MediaType] {
        guard let value else { return [] }
        var result: [MediaType] = []
        for (type, media) in try object(value, path, "'content'") {
            let members = try object(media, path + type, "a media type")
            result.append(MediaType(type: type, schema: try members["schema"].map { value throws(IrdError) in try schema(value, path + type + "schema") }))
        }
        return result
    }

    func operation(_ value: JSONValue, _ path: JSONPath, method: String, template: String, shared: [Parameter],
                   schemes: [SecurityScheme]) throws(IrdError) -> Operation {
        let members = try object(value, path, "an operation")
        // The operation's own parameters replace the path item's of the same name and place. Sets throughout: a
        // document can declare 300 000 parameters, and pairwise searches made that 10^11 comparisons.
        let own = try self.parameters(members["parameters"], path + "parameters")
        let overridden = Set(own.map { ParameterKey(name: $0.name, location: $0.location) })
        let parameters = shared.filter { !overridden.contains(ParameterKey(name: $0.name, location: $0.location)) } + own
        // Every {name} of the template needs its path parameter, and every path parameter a {name}.
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw fail("unbalanced '{' in the path template", path) }
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        let pathParameters = Set(parameters.filter { $0.location == .path }.map(\.name)), templateNames = Set(names)
        for name in names where !pathParameters.contains(name) {
            throw fail("the path has {\(name)} but no path parameter '\(name)'", path)
        }
        for parameter in parameters where parameter.location == .path && !templateNames.contains(parameter.name) {
            throw fail("path parameter '\(parameter.name)' does not appear in the path \(template)", path + "parameters")
        }
        var body: RequestBody?
        if let value = members["requestBody"] {
            let (object, at) = try resolved(value, path + "requestBody", "a request body")
            body = RequestBody(required: try bool(object, "required", at) ?? false, description: try string(object, "description", at),
                               content: try content(object["content"], at + "content"))
        }
        guard let responsesValue = members["responses"] else { throw fail("'responses' is required", path) }
        var responses: [Response] = []
        for (status, responseValue) in try object(responsesValue, path + "responses", "'responses'") {
            let (response, at) = try resolved(responseValue, path + "responses" + status, "a response")
            let valid = status == "default" || (status.count == 3 && status.first.map { "12345".contains($0) } == true
                && status.dropFirst().allSatisfy { $0.isNumber || $0 == "X" || $0 == "x" })
            guard valid else { throw fail("'\(status)' is not a response status (100–599, 2XX or default)", path + "responses" + status) }
            var headers: [(name: String, schema: SchemaRef?)] = []
            if let list = response["headers"] {
                for (name, headerValue) in try object(list, at + "headers", "'headers'") {
                    let (header, headerPath) = try resolved(headerValue, at + "headers" + name, "a header")
                    headers.append((name, try header["schema"].map { value throws(IrdError) in try schema(value, headerPath + "schema") }))
                }
            }
            var links: [Link] = []
            if let list = response["links"] {
                for (name, linkValue) in try object(list, at + "links", "'links'") {
                    let (link, linkPath) = try resolved(linkValue, at + "links" + name, "a link")
                    let operationId = try string(link, "operationId", linkPath)
                    let operationRef = try string(link, "operationRef", linkPath)
                    guard operationId != nil || operationRef != nil else { throw fail("a link needs operationId or operationRef", linkPath) }
                    let parameters = try link["parameters"].map { value throws(IrdError) in
                        try object(value, linkPath + "parameters", "'parameters'").entries.map { (name: $0.key, value: $0.value) }
                    } ?? []
                    links.append(Link(name: name, operationId: operationId, operationRef: operationRef, parameters: parameters,
                                      description: try string(link, "description", linkPath)))
                }
            }
            responses.append(Response(status: status, description: try string(response, "description", at),
                                      content: try content(response["content"], at + "content"), headers: headers, links: links))
        }
        var tags: [String] = []
        if let list = members["tags"] {
            guard let array = list.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("'tags' must be an array of strings", path + "tags")
            }
            tags = array.compactMap(\.stringValue)
        }
        return Operation(operationId: try string(members, "operationId", path), method: method.uppercased(), path: template,
                         tags: tags, summary: try string(members, "summary", path), description: try string(members, "description", path),
                         deprecated: try bool(members, "deprecated", path) ?? false, parameters: parameters, requestBody: body,
                         responses: responses, security: try securityRequirements(members["security"], path + "security", schemes: schemes),
                         location: path)
    }
}

/// What changed between two documents: operations added or removed (by operationId, else method and path) and
/// schema fields added or removed. Fields are named by their component schema (`Instance.ipv6`) or, for schemas
/// written inline in an operation, by the operation and where (`listInstances 200.instances[].ipv6`).
public struct IrdSpecDiff: Sendable {
    public let addedOperations: [String]
    public let removedOperations: [String]
    public let addedFields: [String]
    public let removedFields: [String]

    public var isEmpty: Bool { addedOperations.isEmpty && removedOperations.isEmpty && addedFields.isEmpty && removedFields.isEmpty }

    public init(from old: OpenAPIDocument, to new: OpenAPIDocument) {
        let oldOperations = Self.operations(old), newOperations = Self.operations(new)
        addedOperations = newOperations.filter { !oldOperations.contains($0) }
        removedOperations = oldOperations.filter { !newOperations.contains($0) }
        let oldFields = Self.fields(old), newFields = Self.fields(new)
        let oldSet = Set(oldFields), newSet = Set(newFields)
        addedFields = newFields.filter { !oldSet.contains($0) }
        removedFields = oldFields.filter { !newSet.contains($0) }
    }

    static func name(_ operation: Operation) -> String {
        operation.operationId.map { "\($0) (\(operation.display))" } ?? operation.display
    }

    static func operations(_ document: OpenAPIDocument) -> [String] { document.operations.map(name) }

    static func fields(_ document: OpenAPIDocument) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        func add(_ field: String) { if seen.insert(field).inserted { result.append(field) } }
        // An inline schema is walked once, under the first name that reaches it: a hostile document can reach one
        // by 2^n routes (n shared schemas with two properties naming the next), and naming every route would take
        // exponential time and memory. Real documents write an inline schema in one place. Walks stop at component
        // schemas (walked from their own names), so this also ends cycles.
        var walked = Set<Int>()
        func walk(_ ref: SchemaRef, _ prefix: String) {
            let schema = document[ref]
            guard schema.componentName != nil || walked.insert(ref.index).inserted else { return }
            for property in schema.properties {
                let field = prefix + property.name
                add(field)
                let inner = document[property.schema]
                if inner.componentName == nil { walk(property.schema, field + ".") }
                if let items = inner.items, document[items].componentName == nil { walk(items, field + "[].") }
            }
            for branch in schema.allOf + schema.anyOf + schema.oneOf where document[branch].componentName == nil {
                walk(branch, prefix)
            }
            if let items = schema.items, document[items].componentName == nil { walk(items, prefix + "[].") }
        }
        for (name, ref) in document.componentSchemas { walk(ref, name + ".") }
        for operation in document.operations {
            let label = operation.operationId ?? operation.display
            if let schema = operation.requestBody?.json?.schema, document[schema].componentName == nil {
                walk(schema, label + " request.")
            }
            for response in operation.responses {
                if let schema = response.json?.schema, document[schema].componentName == nil {
                    walk(schema, label + " \(response.status).")
                }
            }
        }
        return result
    }
}

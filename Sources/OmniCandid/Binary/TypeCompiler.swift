/// Compiles `CandidType`s (with their environment) into a `TypeGraph`, checking them on the way:
/// unknown names, cyclic aliases, duplicate field ids or method names, method types that are not functions,
/// `oneway` functions with results.
struct TypeCompiler {
    let environment: CandidTypeEnvironment
    let maxDepth: Int
    private var nodes: [GraphNode?] = []
    private var namedReferences: [String: Int] = [:]
    /// Service method references to check once every node is filled in (they may point at nodes in progress).
    private var methodChecks: [(service: String, definition: String?, method: String, type: Int)] = []
    /// The named definition whose body is being compiled (errors are attributed to it).
    private var currentDefinition: String?
    private var depth = 0

    init(environment: CandidTypeEnvironment, maxDepth: Int = CandidLimits.default.maxDepth) {
        self.environment = environment
        self.maxDepth = maxDepth
    }

    /// Compiles a list of types into one graph and returns their references.
    static func compile(_ types: [CandidType], in environment: CandidTypeEnvironment,
                        maxDepth: Int = CandidLimits.default.maxDepth) throws(CandidError) -> (TypeGraph, [Int]) {
        var compiler = TypeCompiler(environment: environment, maxDepth: maxDepth)
        var references: [Int] = []
        for type in types { references.append(try compiler.compile(type)) }
        return (try compiler.finish(), references)
    }

    mutating func finish() throws(CandidError) -> TypeGraph {
        for check in methodChecks {
            guard check.type >= 0, case .function = nodes[check.type] else {
                throw CandidError(.invalidType, "method \(CandidLabel.quoted(check.method)) of \(check.service) is not a function type")
                    .inDefinition(check.definition)
            }
        }
        var filled: [GraphNode] = []
        filled.reserveCapacity(nodes.count)
        for node in nodes {
            guard let node else { throw CandidError(.invalidType, "type definition refers to itself without a constructor") }
            filled.append(node)
        }
        return TypeGraph(nodes: filled)
    }

    /// Node index → the name of the definition it was compiled from, for messages. Of an alias chain (whose names
    /// all share the node) the name that defines the structure is kept.
    func definitionNames() -> [Int: String] {
        var names: [Int: String] = [:]
        for (name, reference) in namedReferences where reference >= 0 {
            var isStructural = true
            if case .named = environment[name] { isStructural = false }
            if isStructural || names[reference] == nil { names[reference] = name }
        }
        return names
    }

    mutating func compile(_ type: CandidType) throws(CandidError) -> Int {
        if let code = Opcode.primitive(type) { return code }
        depth += 1
        defer { depth -= 1 }
        guard depth <= maxDepth else { throw CandidError(.limitExceeded, "type nested deeper than \(maxDepth)") }
        switch type {
        case .named(let name):
            return try compileNamed(name)
        default:
            let index = nodes.count
            nodes.append(nil)
            nodes[index] = try compileBody(type, describedAs: "the service")
            return index
        }
    }

    private mutating func compileNamed(_ name: String) throws(CandidError) -> Int {
        if let reference = namedReferences[name] { return reference }
        // Follow the alias chain; every name on it denotes the same reference.
        var chain: [String] = []
        var current = CandidType.named(name)
        while case .named(let next) = current {
            if let reference = namedReferences[next] {
                for alias in chain { namedReferences[alias] = reference }
                return reference
            }
            guard !chain.contains(next) else {
                throw CandidError(.invalidType, "type \(CandidLabel.quoted(next)) is defined only in terms of itself")
            }
            guard let definition = environment[next] else {
                throw CandidError(.invalidType, "unknown type \(CandidLabel.quoted(next))")
            }
            chain.append(next)
            current = definition
        }
        if let code = Opcode.primitive(current) {
            for alias in chain { namedReferences[alias] = code }
            return code
        }
        let index = nodes.count
        nodes.append(nil)
        for alias in chain { namedReferences[alias] = index }
        let definition = chain.last ?? name
        let outer = currentDefinition
        currentDefinition = definition
        defer { currentDefinition = outer }
        do throws(CandidError) {
            nodes[index] = try compileBody(current, describedAs: "type \(CandidLabel.quoted(definition))")
        } catch {
            throw error.inDefinition(definition)
        }
        return index
    }

    private mutating func compileBody(_ type: CandidType, describedAs owner: String) throws(CandidError) -> GraphNode {
        switch type {
        case .opt(let inner): return .opt(try compile(inner))
        case .vec(let inner): return .vec(try compile(inner))
        case .record(let fields): return .record(try compileFields(fields, kind: "record"))
        case .variant(let fields): return .variant(try compileFields(fields, kind: "variant"))
        case .function(let function): return .function(try compileFunction(function))
        case .service(let service):
            var methods: [GraphMethod] = []
            for method in service.methods {
                let reference = try compile(method.type)
                methodChecks.append((owner, currentDefinition, method.name, reference))
                methods.append(GraphMethod(name: method.name, type: reference))
            }
            methods.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
            for (a, b) in zip(methods, methods.dropFirst()) where a.name == b.name {
                throw CandidError(.duplicateLabel, "duplicate method \(CandidLabel.quoted(a.name)) in \(owner)")
            }
            return .service(methods)
        default:
            throw CandidError(.invalidType, "unexpected type")
        }
    }

    private mutating func compileFields(_ fields: [CandidField], kind: String) throws(CandidError) -> [GraphField] {
        var compiled: [GraphField] = []
        compiled.reserveCapacity(fields.count)
        for field in fields { compiled.append(GraphField(label: field.label, type: try compile(field.type))) }
        compiled.sort { $0.label.id < $1.label.id }
        for (a, b) in zip(compiled, compiled.dropFirst()) where a.label.id == b.label.id {
            let names = [a.label, b.label].map(\.quotedDescription).joined(separator: " and ")
            throw CandidError(.duplicateLabel, a.label == b.label && a.label.name == b.label.name
                              ? "duplicate \(kind) field \(a.label.quotedDescription)" : "\(kind) fields \(names) have the same id \(a.label.id)")
        }
        return compiled
    }

    private mutating func compileFunction(_ function: CandidFunctionType) throws(CandidError) -> GraphFunction {
        var arguments: [Int] = [], results: [Int] = []
        for argument in function.arguments { arguments.append(try compile(argument.type)) }
        for result in function.results { results.append(try compile(result.type)) }
        if function.isOneway && !function.results.isEmpty {
            throw CandidError(.invalidType, "a oneway function cannot have results")
        }
        let modes = Array(Set(function.modes.map(\.wireCode))).sorted()
        return GraphFunction(arguments: arguments, results: results, modes: modes)
    }
}

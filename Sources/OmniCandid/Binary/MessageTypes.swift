extension Candid {
    /// The argument types a message declares, so an untyped message can be shown with its types.
    ///
    /// Table entries referenced more than once (which includes every recursive type) become definitions named
    /// after their table index (`t0`, `t3`, …); the rest are written inline. Future types appear as `reserved`.
    public static func messageTypes(_ bytes: [UInt8], limits: CandidLimits = .default)
        throws(CandidError) -> (types: [CandidType], environment: CandidTypeEnvironment) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CandidError) in
            var decoder = MessageDecoder(bytes: buffer, expected: TypeGraph(nodes: []), limits: limits)
            try decoder.readHeader()
            var decompiler = TypeDecompiler(graph: decoder.wire, maxDepth: limits.maxDepth)
            decompiler.countReferences(from: decoder.wireArguments)
            let types = decoder.wireArguments.map { decompiler.type($0, depth: 0) }
            return (types, try decompiler.definitions())
        }
    }
}

/// Turns graph references back into `CandidType`s.
struct TypeDecompiler {
    let graph: TypeGraph
    let maxDepth: Int
    private var referenceCounts: [Int]
    private var named: Set<Int> = []

    init(graph: TypeGraph, maxDepth: Int) {
        self.graph = graph
        self.maxDepth = maxDepth
        referenceCounts = [Int](repeating: 0, count: graph.nodes.count)
    }

    mutating func countReferences(from arguments: [Int]) {
        func count(_ type: Int) { if type >= 0 { referenceCounts[type] += 1 } }
        arguments.forEach(count)
        for node in graph.nodes {
            switch node {
            case .opt(let inner), .vec(let inner): count(inner)
            case .record(let fields), .variant(let fields): fields.forEach { count($0.type) }
            case .function(let function): (function.arguments + function.results).forEach(count)
            case .service(let methods): methods.forEach { count($0.type) }
            case .future: break
            }
        }
    }

    static func name(_ index: Int) -> String { "t\(index)" }

    mutating func type(_ reference: Int, depth: Int) -> CandidType {
        if reference < 0 { return Opcode.type(of: reference) }
        if referenceCounts[reference] > 1 || depth >= maxDepth {
            named.insert(reference)
            return .named(Self.name(reference))
        }
        return body(reference, depth: depth)
    }

    private mutating func body(_ index: Int, depth: Int) -> CandidType {
        switch graph.nodes[index] {
        case .opt(let inner): return .opt(type(inner, depth: depth + 1))
        case .vec(let inner): return .vec(type(inner, depth: depth + 1))
        case .record(let fields): return .record(fields.map { CandidField($0.label, type($0.type, depth: depth + 1)) })
        case .variant(let fields): return .variant(fields.map { CandidField($0.label, type($0.type, depth: depth + 1)) })
        case .function(let function):
            let modes = function.modes.compactMap { code in CandidFunctionType.Mode.allCases.first { $0.wireCode == code } }
            return .function(CandidFunctionType(function.arguments.map { type($0, depth: depth + 1) },
                                                function.results.map { type($0, depth: depth + 1) }, modes: modes))
        case .service(let methods):
            return .service(CandidServiceType(methods.map { .init($0.name, type($0.type, depth: depth + 1)) }))
        case .future:
            return .reserved
        }
    }

    /// Definitions for every node that was referenced by name, including those their bodies name in turn.
    mutating func definitions() throws(CandidError) -> CandidTypeEnvironment {
        var environment = CandidTypeEnvironment()
        var done: Set<Int> = []
        while let next = named.subtracting(done).min() {
            done.insert(next)
            try environment.define(Self.name(next), body(next, depth: 0))
        }
        return environment
    }
}

import OmniCandid

/// Which definitions must be reference types for the Swift to be finite.
///
/// Swift refuses a type alias that expands to itself, and a struct or enum that contains itself inline (through
/// stored fields, enum payloads or `Optional`). Arrays store their elements out of line, and function and service
/// references hold only a principal, so those edges are harmless; inline records and variants become nested
/// structs and enums, so an alias is only expanded up to them. Hence:
/// - an alias (`opt`, `vec` or a primitive given a name) that expands to itself through other aliases, or that holds
///   itself inline with only aliases and inline records or variants on the way, becomes a wrapper class;
/// - a record, variant or wrapper on a cycle of inline edges (aliases on the way are looked through) is boxed: a
///   `final class`, or an `indirect enum` for a variant.
/// Every cycle of Candid types passes through a named definition, so boxing definitions breaks all of them.
struct RecursionAnalysis {
    /// Definitions written as a wrapper class (recursive aliases).
    private(set) var wrappers: Set<String> = []
    /// Nominal definitions (records, variants, wrappers) that must be reference types.
    private(set) var boxed: Set<String> = []

    init(definitions: [(name: String, type: CandidType)]) {
        var inline: [String: [String]] = [:]
        var expansion: [String: [String]] = [:]
        var isAlias: [String: Bool] = [:]
        for (name, type) in definitions {
            inline[name] = RecursionAnalysis.references(in: type, inlineOnly: true)
            expansion[name] = RecursionAnalysis.expansionReferences(of: type)
            switch type {
            case .record, .variant, .function, .service: isAlias[name] = false
            default: isAlias[name] = true
            }
        }
        let names = definitions.map(\.name)
        let aliases = names.filter { isAlias[$0] == true }
        func restricted(_ graph: [String: [String]]) -> [String: [String]] {
            Dictionary(uniqueKeysWithValues: aliases.map { name in (name, (graph[name] ?? []).filter { isAlias[$0] == true }) })
        }
        for component in RecursionAnalysis.cycles(in: restricted(expansion), order: aliases) { wrappers.formUnion(component) }
        for component in RecursionAnalysis.cycles(in: restricted(inline), order: aliases) { wrappers.formUnion(component) }

        // Nominal definitions, with inline edges contracted through the aliases that remain aliases.
        let wrapped = wrappers
        let isNominal: (String) -> Bool = { name in isAlias[name] == false || wrapped.contains(name) }
        var nominalGraph: [String: [String]] = [:]
        for name in names where isNominal(name) {
            var reached: [String] = []
            var seen: Set<String> = []
            var pending = inline[name] ?? []
            while let next = pending.popLast() {
                guard seen.insert(next).inserted else { continue }
                if isNominal(next) { reached.append(next) } else { pending += inline[next] ?? [] }
            }
            nominalGraph[name] = reached
        }
        for component in RecursionAnalysis.cycles(in: nominalGraph, order: names.filter(isNominal)) {
            boxed.formUnion(component)
        }
        boxed.formUnion(wrappers)
        // Functions and services hold no payload: they need no box even on a cycle.
        for (name, type) in definitions {
            switch type {
            case .function, .service: boxed.remove(name)
            default: break
            }
        }
    }

    /// The names a type refers to; with `inlineOnly`, those held inline (not behind `vec`, `func` or `service`).
    private static func references(in type: CandidType, inlineOnly: Bool) -> [String] {
        var found: [String] = []
        var pending: [CandidType] = [type]
        while let current = pending.popLast() {
            switch current {
            case .named(let name): found.append(name)
            case .opt(let inner): pending.append(inner)
            case .vec(let inner): if !inlineOnly { pending.append(inner) }
            case .record(let fields), .variant(let fields): pending += fields.map(\.type)
            default: break
            }
        }
        return found
    }

    /// The names an alias expands to: through `opt` and `vec` only (an inline record or variant is a type of its own).
    private static func expansionReferences(of type: CandidType) -> [String] {
        var current = type
        while true {
            switch current {
            case .named(let name): return [name]
            case .opt(let inner), .vec(let inner): current = inner
            default: return []
            }
        }
    }

    /// The nodes on cycles (strongly connected components with more than one node, or with a self edge), by
    /// Tarjan's algorithm without recursion.
    static func cycles(in graph: [String: [String]], order: [String]) -> [Set<String>] {
        let graph = graph.mapValues { $0.filter { graph[$0] != nil } }
        var index: [String: Int] = [:]
        var low: [String: Int] = [:]
        var onStack: Set<String> = []
        var stack: [String] = []
        var counter = 0
        var result: [Set<String>] = []
        for root in order where index[root] == nil {
            // Each frame: a node and the position of the next edge to follow.
            var frames: [(node: String, edge: Int)] = [(root, 0)]
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack.insert(root)
            while var frame = frames.popLast() {
                let edges = graph[frame.node] ?? []
                if frame.edge < edges.count {
                    let next = edges[frame.edge]
                    frame.edge += 1
                    frames.append(frame)
                    if index[next] == nil {
                        index[next] = counter; low[next] = counter; counter += 1
                        stack.append(next); onStack.insert(next)
                        frames.append((next, 0))
                    } else if onStack.contains(next) {
                        low[frame.node] = min(low[frame.node]!, index[next]!)
                    }
                    continue
                }
                if let parent = frames.last {
                    low[parent.node] = min(low[parent.node]!, low[frame.node]!)
                }
                guard low[frame.node] == index[frame.node] else { continue }
                var component: Set<String> = []
                while let member = stack.popLast() {
                    onStack.remove(member)
                    component.insert(member)
                    if member == frame.node { break }
                }
                let node = frame.node
                if component.count > 1 || (graph[node] ?? []).contains(node) { result.append(component) }
            }
        }
        return result
    }
}

/// Decides `sub <: super` between types of two graphs (they may be the same graph) by the spec's rules,
/// coinductively for recursive types. Results are memoised for the checker's lifetime: pairs assumed true
/// while a check is in progress are rolled back if that check fails; pairs found false stay false (assuming
/// more can only prove more, so a failure under assumptions is a real failure).
struct SubtypeChecker {
    private let graphs: [TypeGraph]
    private var assumedOrProven: Set<UInt64> = []
    private var refuted: Set<UInt64> = []
    private var log: [UInt64] = []
    private var depth = 0
    let maxDepth: Int
    /// Remaining work units; each new pair compared costs one.
    var budget: Int

    init(sub: TypeGraph, super superGraph: TypeGraph, budget: Int, maxDepth: Int) {
        graphs = [sub, superGraph]
        self.budget = budget
        self.maxDepth = maxDepth
    }

    /// `a` (in the sub graph) <: `b` (in the super graph).
    mutating func isSubtype(_ a: Int, _ b: Int) throws(CandidError) -> Bool {
        try check(a, side: 0, b, side: 1)
    }

    /// `a` (in graph `sa`: 0 the sub graph, 1 the super graph) <: `b` (in graph `sb`); explanations flip the sides
    /// in contravariant positions.
    mutating func isSubtype(_ a: Int, side sa: Int, _ b: Int, side sb: Int) throws(CandidError) -> Bool {
        try check(a, side: sa, b, side: sb)
    }

    func graph(_ side: Int) -> TypeGraph { graphs[side] }

    private mutating func check(_ a: Int, side sa: Int, _ b: Int, side sb: Int) throws(CandidError) -> Bool {
        let ga = graphs[sa], gb = graphs[sb]
        if ga === gb && a == b { return true }
        if b == Opcode.reserved || a == Opcode.empty { return true }
        // Everything is a subtype of an option (the spec's opt rules cover every case).
        if b >= 0, case .opt = gb.nodes[b] { return true }
        if a < 0 && b < 0 { return a == b || (a == Opcode.nat && b == Opcode.int) }
        if b == Opcode.principal {
            if a >= 0, case .service = ga.nodes[a] { return true }
            return false
        }
        if a < 0 || b < 0 { return false }

        let key = (UInt64(a) << 33) | (UInt64(b) << 2) | (UInt64(sa) << 1) | UInt64(sb)
        if refuted.contains(key) { return false }
        if assumedOrProven.contains(key) { return true }
        guard budget >= 1 else { throw CandidError(.limitExceeded, "work budget exhausted while checking subtypes") }
        budget -= 1
        depth += 1
        defer { depth -= 1 }
        if depth > maxDepth { throw CandidError(.limitExceeded, "subtype check nested deeper than \(maxDepth)") }

        assumedOrProven.insert(key)
        let mark = log.count
        log.append(key)
        let result = try structural(ga.nodes[a], side: sa, gb.nodes[b], side: sb)
        if !result {
            for assumed in log[mark...] { assumedOrProven.remove(assumed) }
            log.removeSubrange(mark...)
            refuted.insert(key)
        }
        return result
    }

    private mutating func structural(_ a: GraphNode, side sa: Int, _ b: GraphNode, side sb: Int) throws(CandidError) -> Bool {
        switch (a, b) {
        case (.vec(let x), .vec(let y)):
            return try check(x, side: sa, y, side: sb)
        case (.record(let subFields), .record(let superFields)):
            var i = 0
            for field in superFields {
                while i < subFields.count && subFields[i].label.id < field.label.id { i += 1 }
                if i < subFields.count && subFields[i].label.id == field.label.id {
                    if !(try check(subFields[i].type, side: sa, field.type, side: sb)) { return false }
                } else if !graph(sb).isNullable(field.type) {
                    return false
                }
            }
            return true
        case (.variant(let subFields), .variant(let superFields)):
            var j = 0
            for field in subFields {
                while j < superFields.count && superFields[j].label.id < field.label.id { j += 1 }
                guard j < superFields.count, superFields[j].label.id == field.label.id else { return false }
                if !(try check(field.type, side: sa, superFields[j].type, side: sb)) { return false }
            }
            return true
        case (.function(let f), .function(let g)):
            return try isFunctionSubtype(f, side: sa, g, side: sb)
        case (.service(let subMethods), .service(let superMethods)):
            // Both lists are sorted by the UTF-8 bytes of the names: merge.
            var i = 0
            for method in superMethods {
                while i < subMethods.count && subMethods[i].name.utf8.lexicographicallyPrecedes(method.name.utf8) { i += 1 }
                guard i < subMethods.count, subMethods[i].name == method.name else { return false }
                if !(try check(subMethods[i].type, side: sa, method.type, side: sb)) { return false }
            }
            return true
        default:
            return false
        }
    }

    /// Arguments are contravariant and results covariant, each compared like a tuple record (extra trailing
    /// entries allowed where the record rules allow them).
    private mutating func isFunctionSubtype(_ f: GraphFunction, side sa: Int, _ g: GraphFunction, side sb: Int) throws(CandidError) -> Bool {
        guard f.modes == g.modes else { return false }
        for (index, argument) in f.arguments.enumerated() {
            if index < g.arguments.count {
                if !(try check(g.arguments[index], side: sb, argument, side: sa)) { return false }
            } else if !graph(sa).isNullable(argument) {
                return false
            }
        }
        for (index, result) in g.results.enumerated() {
            if index < f.results.count {
                if !(try check(f.results[index], side: sa, result, side: sb)) { return false }
            } else if !graph(sb).isNullable(result) {
                return false
            }
        }
        return true
    }
}

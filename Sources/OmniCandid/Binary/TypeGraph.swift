/// Type references inside a `TypeGraph`: a negative number is a primitive type's opcode (as on the wire),
/// a non-negative number indexes `nodes`. Wire type tables and compiled `CandidType`s share this form, so the
/// decoder, encoder and subtype checker work on plain integers.
enum Opcode {
    static let null = -1, bool = -2, nat = -3, int = -4, nat8 = -5, nat16 = -6, nat32 = -7, nat64 = -8
    static let int8 = -9, int16 = -10, int32 = -11, int64 = -12, float32 = -13, float64 = -14, text = -15
    static let reserved = -16, empty = -17, opt = -18, vec = -19, record = -20, variant = -21, function = -22
    static let service = -23, principal = -24

    static func isPrimitive(_ code: Int) -> Bool { (code <= -1 && code >= -17) || code == principal }

    static func primitive(_ type: CandidType) -> Int? {
        switch type {
        case .null: return null
        case .bool: return bool
        case .nat: return nat
        case .int: return int
        case .nat8: return nat8
        case .nat16: return nat16
        case .nat32: return nat32
        case .nat64: return nat64
        case .int8: return int8
        case .int16: return int16
        case .int32: return int32
        case .int64: return int64
        case .float32: return float32
        case .float64: return float64
        case .text: return text
        case .reserved: return reserved
        case .empty: return empty
        case .principal: return principal
        default: return nil
        }
    }

    static func type(of code: Int) -> CandidType {
        switch code {
        case null: return .null
        case bool: return .bool
        case nat: return .nat
        case int: return .int
        case nat8: return .nat8
        case nat16: return .nat16
        case nat32: return .nat32
        case nat64: return .nat64
        case int8: return .int8
        case int16: return .int16
        case int32: return .int32
        case int64: return .int64
        case float32: return .float32
        case float64: return .float64
        case text: return .text
        case reserved: return .reserved
        case principal: return .principal
        default: return .empty
        }
    }

    static func name(_ code: Int) -> String {
        switch code {
        case opt: return "opt"
        case vec: return "vec"
        case record: return "record"
        case variant: return "variant"
        case function: return "func"
        case service: return "service"
        default:
            let type = Self.type(of: code)
            return CandidType.primitives.first { $0.value == type }?.key ?? "opcode \(code)"
        }
    }
}

struct GraphField {
    let label: CandidLabel
    let type: Int
}

struct GraphFunction {
    let arguments: [Int]
    let results: [Int]
    /// Annotation codes sorted ascending (1 query, 2 oneway, 3 composite_query).
    let modes: [UInt8]
}

struct GraphMethod {
    let name: String
    let type: Int
}

enum GraphNode {
    case opt(Int)
    case vec(Int)
    /// Fields sorted by id, ids unique.
    case record([GraphField])
    case variant([GraphField])
    case function(GraphFunction)
    /// Methods sorted by the UTF-8 bytes of their names.
    case service([GraphMethod])
    /// An entry with an opcode below -24, skipped by length.
    case future

    var opcode: Int {
        switch self {
        case .opt: return Opcode.opt
        case .vec: return Opcode.vec
        case .record: return Opcode.record
        case .variant: return Opcode.variant
        case .function: return Opcode.function
        case .service: return Opcode.service
        case .future: return -25
        }
    }
}

/// An immutable graph of composite types with the facts the decoder needs precomputed once.
final class TypeGraph: @unchecked Sendable {
    let nodes: [GraphNode]
    /// Whether any value of the node's type exists (records through themselves, `empty` fields, … do not).
    let inhabited: [Bool]
    /// A lower bound on the encoded size of one value, for early plausibility checks on vector lengths.
    let minimumBytes: [Int]
    /// For types whose values occupy no bytes (null, reserved, records of those): the work cost of one value.
    let zeroSizedCost: [Int?]

    /// Work units for one value that occupies no input bytes. Such values are pure amplification (a vector of
    /// them costs nothing on the wire), so they are charged well above an ordinary value.
    static let zeroSizedUnit = 8

    /// Options whose chain of `opt` links loops (`type t = opt t`): they cannot hold a non-optional value.
    let isRecursiveOption: [Bool]

    init(nodes: [GraphNode]) {
        self.nodes = nodes
        self.isRecursiveOption = TypeGraph.computeRecursiveOptions(nodes)
        let inhabited = TypeGraph.computeInhabited(nodes)
        self.inhabited = inhabited
        self.minimumBytes = TypeGraph.computeMinimumBytes(nodes)
        self.zeroSizedCost = TypeGraph.computeZeroSizedCost(nodes, inhabited: inhabited)
    }

    @inline(__always) func isInhabited(_ type: Int) -> Bool {
        type >= 0 ? inhabited[type] : type != Opcode.empty
    }

    /// `null <: type`: null, reserved and options.
    @inline(__always) func isNullable(_ type: Int) -> Bool {
        if type < 0 { return type == Opcode.null || type == Opcode.reserved }
        if case .opt = nodes[type] { return true }
        return false
    }

    func minimumBytes(of type: Int) -> Int {
        if type >= 0 { return minimumBytes[type] }
        switch type {
        case Opcode.null, Opcode.reserved, Opcode.empty: return 0
        case Opcode.bool, Opcode.nat8, Opcode.int8, Opcode.nat, Opcode.int, Opcode.text: return 1
        case Opcode.nat16, Opcode.int16, Opcode.principal: return 2
        case Opcode.nat32, Opcode.int32, Opcode.float32: return 4
        default: return 8
        }
    }

    func zeroSizedCost(of type: Int) -> Int? {
        if type >= 0 { return zeroSizedCost[type] }
        return type == Opcode.null || type == Opcode.reserved ? TypeGraph.zeroSizedUnit : nil
    }

    // MARK: Analyses

    private static func computeRecursiveOptions(_ nodes: [GraphNode]) -> [Bool] {
        // Each option has one outgoing opt link, so chains are followed once: 0 unknown, 1 on the current chain,
        // 2 finished.
        var result = [Bool](repeating: false, count: nodes.count)
        var state = [UInt8](repeating: 0, count: nodes.count)
        for start in 0..<nodes.count where state[start] == 0 {
            var chain: [Int] = []
            var current = start
            var loops = false
            while current >= 0, state[current] != 2, case .opt(let inner) = nodes[current] {
                if state[current] == 1 { loops = true; break }
                state[current] = 1
                chain.append(current)
                current = inner
            }
            if !loops, current >= 0, state[current] == 2 { loops = result[current] }
            for index in chain {
                result[index] = loops
                state[index] = 2
            }
        }
        return result
    }

    private static func computeInhabited(_ nodes: [GraphNode]) -> [Bool] {
        var inhabited = [Bool](repeating: false, count: nodes.count)
        var pending = [Int](repeating: 0, count: nodes.count)
        var dependents = [[Int]](repeating: [], count: nodes.count)
        var ready: [Int] = []
        for (index, node) in nodes.enumerated() {
            switch node {
            case .record(let fields):
                if fields.contains(where: { $0.type == Opcode.empty }) { pending[index] = -1; continue }
                let references = fields.filter { $0.type >= 0 }
                pending[index] = references.count
                for field in references { dependents[field.type].append(index) }
                if references.isEmpty { ready.append(index) }
            case .variant(let fields):
                if fields.contains(where: { $0.type < 0 && $0.type != Opcode.empty }) { ready.append(index); continue }
                for field in fields where field.type >= 0 { dependents[field.type].append(index) }
            default:
                ready.append(index)
            }
        }
        while let index = ready.popLast() {
            if inhabited[index] { continue }
            inhabited[index] = true
            for dependent in dependents[index] where !inhabited[dependent] {
                if case .record = nodes[dependent] {
                    pending[dependent] -= 1
                    if pending[dependent] == 0 { ready.append(dependent) }
                } else {
                    ready.append(dependent)
                }
            }
        }
        return inhabited
    }

    private static func computeMinimumBytes(_ nodes: [GraphNode]) -> [Int] {
        let cap = 1 << 32
        var sizes = [Int](repeating: 0, count: nodes.count)
        func size(_ type: Int) -> Int {
            if type >= 0 { return sizes[type] }
            switch type {
            case Opcode.null, Opcode.reserved, Opcode.empty: return 0
            case Opcode.bool, Opcode.nat8, Opcode.int8, Opcode.nat, Opcode.int, Opcode.text: return 1
            case Opcode.nat16, Opcode.int16, Opcode.principal: return 2
            case Opcode.nat32, Opcode.int32, Opcode.float32: return 4
            default: return 8
            }
        }
        // Starting from zero and applying the (monotone) size equations keeps every value a valid lower bound;
        // two passes catch the common nesting without iterating recursive types to a fixpoint.
        for _ in 0..<2 {
            for index in stride(from: nodes.count - 1, through: 0, by: -1) {
                switch nodes[index] {
                case .opt, .vec: sizes[index] = 1
                case .record(let fields): sizes[index] = min(cap, fields.reduce(0) { min(cap, $0 + size($1.type)) })
                case .variant(let fields): sizes[index] = 1 + (fields.map { size($0.type) }.min() ?? 0)
                case .function: sizes[index] = 4
                case .service, .future: sizes[index] = 2
                }
            }
        }
        return sizes
    }

    private static func computeZeroSizedCost(_ nodes: [GraphNode], inhabited: [Bool]) -> [Int?] {
        let cap = Int.max / 4
        var costs = [Int?](repeating: nil, count: nodes.count)
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0 new, 1 visiting, 2 done
        // Iterative post-order walk: zero-sized records form a DAG (a cycle would be uninhabited).
        for root in 0..<nodes.count where state[root] == 0 {
            var stack: [(index: Int, expanded: Bool)] = [(root, false)]
            while let (index, expanded) = stack.popLast() {
                if state[index] == 2 { continue }
                guard case .record(let fields) = nodes[index], inhabited[index] else { state[index] = 2; continue }
                if !expanded {
                    state[index] = 1
                    stack.append((index, true))
                    for field in fields where field.type >= 0 && state[field.type] == 0 { stack.append((field.type, false)) }
                    continue
                }
                var total = zeroSizedUnit
                var zeroSized = true
                for field in fields {
                    let cost: Int?
                    if field.type >= 0 { cost = state[field.type] == 2 ? costs[field.type] : nil }
                    else { cost = field.type == Opcode.null || field.type == Opcode.reserved ? zeroSizedUnit : nil }
                    guard let cost else { zeroSized = false; break }
                    total = min(cap, total + 1 + cost)
                }
                costs[index] = zeroSized ? total : nil
                state[index] = 2
            }
        }
        return costs
    }
}

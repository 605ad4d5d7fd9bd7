import OmniCodec

/// Settings for random value generation (`omni candid random`).
public struct CandidRandomConfiguration: Sendable {
    /// Nesting depth after which options are absent, vectors empty and variants pick their shallowest case.
    public var maxDepth: Int
    public var maxVectorLength: Int
    public var maxTextLength: Int
    /// Largest `nat`/`int` magnitude in bits.
    public var maxNumberBits: Int
    /// Whether floats may be NaN or infinite.
    public var includeNonFiniteFloats: Bool

    public init(maxDepth: Int = 6, maxVectorLength: Int = 6, maxTextLength: Int = 16, maxNumberBits: Int = 128,
                includeNonFiniteFloats: Bool = false) {
        self.maxDepth = maxDepth
        self.maxVectorLength = maxVectorLength
        self.maxTextLength = maxTextLength
        self.maxNumberBits = maxNumberBits
        self.includeNonFiniteFloats = includeNonFiniteFloats
    }
}

extension Candid {
    /// Random values of `types`, reproducible from `seed`. Recursive types terminate: past `maxDepth`, options
    /// are absent, vectors empty and variants take a case that ends soonest. Types without finite values
    /// (`empty`, `record { t }` recursions) are an error.
    public static func randomArguments(types: [CandidType], environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                       seed: UInt64, configuration: CandidRandomConfiguration = CandidRandomConfiguration())
        throws(CandidError) -> [CandidValue] {
        let (graph, references) = try TypeCompiler.compile(types, in: environment)
        var generator = RandomValueGenerator(graph: graph, seed: seed, configuration: configuration)
        var values: [CandidValue] = []
        for (index, reference) in references.enumerated() {
            do throws(CandidError) { values.append(try generator.value(reference, depth: configuration.maxDepth)) }
            catch { throw error.inside(.argument(index)) }
        }
        return values
    }
}

/// SplitMix64: small, fast, and good enough for test data.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }
}

struct RandomValueGenerator {
    let graph: TypeGraph
    let configuration: CandidRandomConfiguration
    var random: SplitMix64
    /// Minimum nesting needed to finish a value of each node; Int.max when no finite value exists.
    let heights: [Int]

    init(graph: TypeGraph, seed: UInt64, configuration: CandidRandomConfiguration) {
        self.graph = graph
        self.configuration = configuration
        self.random = SplitMix64(seed: seed)
        self.heights = RandomValueGenerator.computeHeights(graph)
    }

    static func computeHeights(_ graph: TypeGraph) -> [Int] {
        var heights = [Int](repeating: Int.max, count: graph.nodes.count)
        func height(_ type: Int) -> Int { type >= 0 ? heights[type] : (type == Opcode.empty ? Int.max : 0) }
        var changed = true
        while changed {
            changed = false
            for (index, node) in graph.nodes.enumerated() {
                let value: Int
                switch node {
                case .opt, .vec, .function, .service, .future: value = 0
                case .record(let fields):
                    let deepest = fields.map { height($0.type) }.max() ?? 0
                    value = deepest == Int.max ? Int.max : deepest + 1
                case .variant(let fields):
                    let shallowest = fields.map { height($0.type) }.min() ?? Int.max
                    value = shallowest == Int.max ? Int.max : shallowest + 1
                }
                if value < heights[index] {
                    heights[index] = value
                    changed = true
                }
            }
        }
        return heights
    }

    private func height(_ type: Int) -> Int { type >= 0 ? heights[type] : (type == Opcode.empty ? Int.max : 0) }

    mutating func value(_ type: Int, depth: Int) throws(CandidError) -> CandidValue {
        guard height(type) != Int.max else {
            throw CandidError(.invalidType, "\(describe(type, in: graph)) has no finite values")
        }
        if type < 0 { return primitive(type) }
        switch graph.nodes[type] {
        case .opt(let inner):
            if depth <= 0 || height(inner) == Int.max || random.chance(1, in: 3) { return .opt(nil) }
            return .opt(try value(inner, depth: depth - 1))
        case .vec(let inner):
            guard depth > 0, height(inner) != Int.max else { return inner == Opcode.nat8 ? .blob([]) : .vec([]) }
            let length = random.below(configuration.maxVectorLength + 1)
            if inner == Opcode.nat8 { return .blob((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
            var elements: [CandidValue] = []
            for _ in 0..<length { elements.append(try value(inner, depth: depth - 1)) }
            return .vec(elements)
        case .record(let fields):
            var values: [CandidFieldValue] = []
            for field in fields { values.append(CandidFieldValue(field.label, try value(field.type, depth: depth - 1))) }
            return .record(values)
        case .variant(let fields):
            // Cases that still fit in the remaining depth; otherwise the shallowest ones.
            var candidates = fields.filter { height($0.type) < max(depth, 1) }
            if candidates.isEmpty {
                let shallowest = fields.map { height($0.type) }.min() ?? Int.max
                candidates = fields.filter { height($0.type) == shallowest }
            }
            let field = candidates[random.below(candidates.count)]
            return .variant(CandidFieldValue(field.label, try value(field.type, depth: depth - 1)))
        case .function:
            return .function(principal(), method: text(ascii: true, minimum: 1))
        case .service:
            return .service(principal())
        case .future:
            return .reserved
        }
    }

    private mutating func primitive(_ type: Int) -> CandidValue {
        switch type {
        case Opcode.null: return .null
        case Opcode.reserved: return .reserved
        case Opcode.bool: return .bool(random.chance(1, in: 2))
        case Opcode.nat: return .nat(natural())
        case Opcode.int: return .int(BigInt(isNegative: random.chance(1, in: 2), magnitude: natural()))
        case Opcode.nat8: return .nat8(UInt8(truncatingIfNeeded: edgeBiased()))
        case Opcode.nat16: return .nat16(UInt16(truncatingIfNeeded: edgeBiased()))
        case Opcode.nat32: return .nat32(UInt32(truncatingIfNeeded: edgeBiased()))
        case Opcode.nat64: return .nat64(edgeBiased())
        case Opcode.int8: return .int8(Int8(truncatingIfNeeded: edgeBiased()))
        case Opcode.int16: return .int16(Int16(truncatingIfNeeded: edgeBiased()))
        case Opcode.int32: return .int32(Int32(truncatingIfNeeded: edgeBiased()))
        case Opcode.int64: return .int64(Int64(bitPattern: edgeBiased()))
        case Opcode.float32: return .float32(Float(float()))
        case Opcode.float64: return .float64(float())
        case Opcode.text: return .text(text(ascii: false, minimum: 0))
        case Opcode.principal: return .principal(principal())
        default: return .null
        }
    }

    /// Mostly small numbers, sometimes all bits, sometimes the extremes, so boundaries get exercised.
    private mutating func edgeBiased() -> UInt64 {
        switch random.below(6) {
        case 0: return 0
        case 1: return UInt64.max
        case 2: return UInt64(random.below(256))
        case 3: return 1 << UInt64(random.below(64))
        default: return random.next()
        }
    }

    private mutating func natural() -> BigUInt {
        if random.chance(1, in: 2) { return BigUInt(UInt64(random.below(1000))) }
        let bits = 1 + random.below(max(configuration.maxNumberBits, 1))
        var limbs: [UInt64] = []
        for _ in 0..<((bits + 63) / 64) { limbs.append(random.next()) }
        if bits % 64 != 0 { limbs[limbs.count - 1] &= (1 << UInt64(bits % 64)) - 1 }
        return BigUInt(limbs: limbs)
    }

    private mutating func float() -> Double {
        switch random.below(8) {
        case 0: return 0
        case 1: return -0.0
        case 2 where configuration.includeNonFiniteFloats: return [Double.nan, .infinity, -.infinity][random.below(3)]
        case 3: return Double(random.below(2001) - 1000) / 8
        default:
            let value = Double(bitPattern: random.next())
            return value.isFinite || configuration.includeNonFiniteFloats ? value : Double(random.below(1000))
        }
    }

    private mutating func text(ascii: Bool, minimum: Int) -> String {
        let length = minimum + random.below(configuration.maxTextLength + 1)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let pick = random.below(10)
            let value: UInt32
            if ascii || pick < 6 {
                let letters = Array("abcdefghijklmnopqrstuvwxyz_ABCXYZ0123456789".unicodeScalars)
                scalars.append(letters[random.below(letters.count)])
                continue
            } else if pick < 8 {
                value = UInt32(0x20 + random.below(0x60))
            } else if pick < 9 {
                value = UInt32(0xA0 + random.below(0xD7FF - 0xA0))
            } else {
                value = UInt32(0x10000 + random.below(0x10FFFF - 0x10000))
            }
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    private mutating func principal() -> Principal {
        switch random.below(4) {
        case 0: return .managementCanister
        case 1: return .anonymous
        default:
            let length = 1 + random.below(Principal.maxByteCount)
            return Principal(unchecked: (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
    }
}

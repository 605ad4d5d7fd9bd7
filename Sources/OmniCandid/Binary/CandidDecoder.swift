/// Decodes binary Candid messages, optionally at an expected argument list.
///
/// Build one per method signature and reuse it: the expected types are compiled once, and each message then
/// costs one pass over its bytes. Safe to share between threads.
public struct CandidDecoder: Sendable {
    private let graph: TypeGraph?
    private let arguments: [Int]
    public let limits: CandidLimits

    /// A decoder that reads values at `types` (resolving names in `environment`) with the spec's subtyping.
    public init(types: [CandidType], environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                limits: CandidLimits = .default) throws(CandidError) {
        let (graph, references) = try TypeCompiler.compile(types, in: environment, maxDepth: limits.maxDepth)
        self.graph = graph
        self.arguments = references
        self.limits = limits
    }

    /// A decoder that returns values at their wire types (record fields then carry only numeric ids).
    public init(limits: CandidLimits = .default) {
        self.graph = nil
        self.arguments = []
        self.limits = limits
    }

    public func decode(_ bytes: [UInt8]) throws(CandidError) -> [CandidValue] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CandidError) in try decode(buffer) }
    }

    public func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(CandidError) -> [CandidValue] {
        var decoder = MessageDecoder(bytes: bytes, expected: graph ?? TypeGraph(nodes: []), limits: limits)
        return try decoder.decodeMessage(expectedArguments: graph == nil ? nil : arguments)
    }

    /// Decodes like `decode(_:)` and appends a warning (kind `.optionalValueDropped`, with byte offset and path) for
    /// every value that did not fit an option's content type and so was read as null, as the spec recommends.
    public func decode(_ bytes: [UInt8], warnings: inout [CandidWarning]) throws(CandidError) -> [CandidValue] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CandidError) in
            var decoder = MessageDecoder(bytes: buffer, expected: graph ?? TypeGraph(nodes: []), limits: limits, collectsWarnings: true)
            let values = try decoder.decodeMessage(expectedArguments: graph == nil ? nil : arguments)
            warnings.append(contentsOf: decoder.warnings.map(\.warning))
            return values
        }
    }
}

extension Candid {
    /// Encodes an argument list. With `types` the values are checked against them (see `MessageEncoder` for the
    /// conversions allowed); without, each value is encoded at its `inferredType()`.
    /// `limits.maxDepth` bounds how deeply the values may nest, `limits.maxNumberBytes` how long a nat or int encodes.
    public static func encode(_ values: [CandidValue], types: [CandidType]? = nil,
                              environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                              limits: CandidLimits = .default) throws(CandidError) -> [UInt8] {
        let types = if let types { types } else { try CandidValue.inferredTypes(of: values) }
        let (graph, references) = try TypeCompiler.compile(types, in: environment, maxDepth: limits.maxDepth)
        return try MessageEncoder.encode(values, types: references, graph: graph, maxDepth: limits.maxDepth,
                                         maxNumberBytes: limits.maxNumberBytes)
    }

    /// Decodes an argument list, at `types` when given, else at the wire types.
    public static func decode(_ bytes: [UInt8], types: [CandidType]? = nil,
                              environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                              limits: CandidLimits = .default) throws(CandidError) -> [CandidValue] {
        if let types { return try CandidDecoder(types: types, environment: environment, limits: limits).decode(bytes) }
        return try CandidDecoder(limits: limits).decode(bytes)
    }

    /// Decodes an argument list like `decode(_:types:environment:limits:)`, appending a warning for every value the
    /// special opt rule read as null.
    public static func decode(_ bytes: [UInt8], types: [CandidType]? = nil,
                              environment: CandidTypeEnvironment = CandidTypeEnvironment(),
                              limits: CandidLimits = .default, warnings: inout [CandidWarning]) throws(CandidError) -> [CandidValue] {
        let decoder = try types.map { (types) throws(CandidError) in try CandidDecoder(types: types, environment: environment, limits: limits) }
            ?? CandidDecoder(limits: limits)
        return try decoder.decode(bytes, warnings: &warnings)
    }

    /// `sub <: super` by the spec's subtyping rules; each type resolves names in its own environment, so an
    /// upgraded interface can be compared with the old one.
    public static func isSubtype(_ sub: CandidType, in subEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                 of superType: CandidType, in superEnvironment: CandidTypeEnvironment = CandidTypeEnvironment(),
                                 limits: CandidLimits = .default) throws(CandidError) -> Bool {
        let (subGraph, subReferences) = try TypeCompiler.compile([sub], in: subEnvironment, maxDepth: limits.maxDepth)
        let (superGraph, superReferences) = try TypeCompiler.compile([superType], in: superEnvironment, maxDepth: limits.maxDepth)
        var checker = SubtypeChecker(sub: subGraph, super: superGraph, budget: limits.workBudget, maxDepth: limits.maxDepth)
        return try checker.isSubtype(subReferences[0], superReferences[0])
    }
}

/// A Candid type as written in `.did` text or built in code.
///
/// Named types (`.named("List")`) refer to definitions in a `CandidTypeEnvironment`; that is how recursive
/// types are expressed. Fields keep their written order here; encoding, decoding and subtyping sort them by id.
/// Equality is syntactic; use `Candid.isSubtype` both ways for semantic equivalence.
public indirect enum CandidType: Hashable, Sendable {
    case null, bool, nat, int, nat8, nat16, nat32, nat64, int8, int16, int32, int64, float32, float64
    case text, reserved, empty, principal
    case opt(CandidType)
    case vec(CandidType)
    case record([CandidField])
    case variant([CandidField])
    case function(CandidFunctionType)
    case service(CandidServiceType)
    /// A reference to a type definition.
    case named(String)

    /// `blob` is shorthand for `vec nat8`.
    public static var blob: CandidType { .vec(.nat8) }

    /// A record of positional fields `0, 1, …` (`record { nat; text }`).
    public static func tuple(_ types: [CandidType]) -> CandidType {
        .record(types.enumerated().map { CandidField(CandidLabel(id: UInt32($0.offset)), $0.element) })
    }

    /// The primitive types by keyword.
    public static let primitives: [String: CandidType] = [
        "null": .null, "bool": .bool, "nat": .nat, "int": .int, "nat8": .nat8, "nat16": .nat16, "nat32": .nat32,
        "nat64": .nat64, "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64, "float32": .float32,
        "float64": .float64, "text": .text, "reserved": .reserved, "empty": .empty, "principal": .principal,
    ]
}

/// A record field or variant case type.
public struct CandidField: Hashable, Sendable {
    public var label: CandidLabel
    public var type: CandidType

    public init(_ label: CandidLabel, _ type: CandidType) {
        self.label = label
        self.type = type
    }

    /// A field labelled by name (hashed on the wire).
    public init(_ name: String, _ type: CandidType) {
        self.init(CandidLabel(name), type)
    }
}

/// A function argument or result: a type with an optional documentation-only name (`to : principal`).
public struct CandidArgument: Hashable, Sendable {
    public var name: String?
    public var type: CandidType

    public init(_ type: CandidType, name: String? = nil) {
        self.type = type
        self.name = name
    }
}

/// `func (args) -> (results) modes`.
public struct CandidFunctionType: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable {
        case query
        case compositeQuery = "composite_query"
        case oneway

        /// Annotation byte in the binary type table.
        var wireCode: UInt8 {
            switch self {
            case .query: return 1
            case .oneway: return 2
            case .compositeQuery: return 3
            }
        }
    }

    public var arguments: [CandidArgument]
    public var results: [CandidArgument]
    public var modes: [Mode]

    public init(arguments: [CandidArgument], results: [CandidArgument], modes: [Mode] = []) {
        self.arguments = arguments
        self.results = results
        self.modes = modes
    }

    public init(_ arguments: [CandidType], _ results: [CandidType], modes: [Mode] = []) {
        self.init(arguments: arguments.map { CandidArgument($0) }, results: results.map { CandidArgument($0) },
                  modes: modes)
    }

    public var argumentTypes: [CandidType] { arguments.map(\.type) }
    public var resultTypes: [CandidType] { results.map(\.type) }
    public var isQuery: Bool { modes.contains(.query) || modes.contains(.compositeQuery) }
    public var isOneway: Bool { modes.contains(.oneway) }
}

/// `service { name : func-type; … }`. Each method type is a `.function` or a `.named` reference to one.
public struct CandidServiceType: Hashable, Sendable {
    public struct Method: Hashable, Sendable {
        public var name: String
        public var type: CandidType

        public init(_ name: String, _ type: CandidType) {
            self.name = name
            self.type = type
        }
    }

    public var methods: [Method]

    public init(_ methods: [Method]) { self.methods = methods }

    public subscript(name: String) -> CandidType? { methods.first { $0.name == name }?.type }
}

/// Type definitions (`type Name = …;`) in declaration order; the scope that `.named` types resolve in.
public struct CandidTypeEnvironment: Equatable, Sendable {
    public private(set) var names: [String] = []
    private var definitions: [String: CandidType] = [:]

    public init() {}

    /// Builds an environment from `(name, type)` pairs; duplicate names are an error.
    public init(_ definitions: [(String, CandidType)]) throws(CandidError) {
        for (name, type) in definitions { try define(name, type) }
    }

    public subscript(name: String) -> CandidType? { definitions[name] }

    public var isEmpty: Bool { names.isEmpty }

    public mutating func define(_ name: String, _ type: CandidType) throws(CandidError) {
        guard definitions[name] == nil else {
            throw CandidError(.invalidType, "duplicate type definition \(CandidLabel.quoted(name))")
        }
        names.append(name)
        definitions[name] = type
    }

    /// Definitions in declaration order.
    public var all: [(name: String, type: CandidType)] { names.compactMap { name in definitions[name].map { (name, $0) } } }

    /// Follows `.named` aliases to the first structural type; unknown names and alias cycles are errors.
    public func resolve(_ type: CandidType) throws(CandidError) -> CandidType {
        var current = type
        var seen: Set<String> = []
        while case .named(let name) = current {
            guard seen.insert(name).inserted else {
                throw CandidError(.invalidType, "type \(CandidLabel.quoted(name)) is defined only in terms of itself")
            }
            guard let next = definitions[name] else {
                throw CandidError(.invalidType, "unknown type \(CandidLabel.quoted(name))")
            }
            current = next
        }
        return current
    }
}

/// A SCALE type described as data, so one interpreter (`SCALECodec`) encodes, decodes and maps to JSON every type
/// of a protocol instead of a hand-written codec per type. Named types live in a `SCALETypeRegistry` and may be
/// recursive (a tree whose nodes hold a vector of nodes).
public indirect enum SCALEType: Sendable, Equatable {
    /// `()`: no bytes.
    case unit
    case bool
    /// Fixed-width little-endian unsigned integer.
    case integer(SCALEInteger)
    /// `Compact<uN>`.
    case compact(SCALEInteger)
    /// `str`: compact byte length ‖ UTF-8.
    case string
    /// `Vec<u8>`: compact length ‖ bytes.
    case bytes
    /// `[u8; N]`: N bytes, no prefix.
    case fixedBytes(Int)
    /// `Vec<T>`: compact count ‖ items.
    case vector(SCALEType)
    /// `(A, B, …)`: the items in order.
    case tuple([SCALEType])
    /// `Option<T>`: `00`, or `01` ‖ T (also for `Option<bool>`, which parity-scale-codec does not specialise).
    case option(SCALEType)
    /// `OptionBool`: one byte, 0 None, 1 true, 2 false.
    case optionBool
    /// `Result<T, E>`: `00` ‖ T or `01` ‖ E.
    case result(ok: SCALEType, error: SCALEType)
    /// Fields in declaration order.
    case structure([SCALEField])
    /// A `u8` variant index ‖ the variant's payload.
    case enumeration([SCALEVariant])
    /// A versioned envelope `enum { V1(T) = 0, V2(T') = 1, … }`: bytes as an enum; in JSON the V1 content stands
    /// for itself (every envelope has only V1 today), other versions are `{"V2": …}`.
    case versioned([SCALEVariant])
    /// A type of the registry, by name.
    case named(String)

    public static let u8 = SCALEType.integer(.u8)
    public static let u16 = SCALEType.integer(.u16)
    public static let u32 = SCALEType.integer(.u32)
    public static let u64 = SCALEType.integer(.u64)
    public static let u128 = SCALEType.integer(.u128)
}

public struct SCALEField: Sendable, Equatable {
    public let name: String
    public let type: SCALEType

    public init(_ name: String, _ type: SCALEType) {
        self.name = name
        self.type = type
    }
}

public struct SCALEVariant: Sendable, Equatable {
    /// What follows a variant's index byte.
    public enum Payload: Sendable, Equatable {
        /// A unit variant: nothing.
        case none
        /// `Name(A, B…)`.
        case tuple([SCALEType])
        /// `Name { a: A, … }`.
        case fields([SCALEField])
    }

    public let index: UInt8
    public let name: String
    public let payload: Payload

    public init(_ index: UInt8, _ name: String, _ payload: Payload = .none) {
        self.index = index
        self.name = name
        self.payload = payload
    }

    public var isUnit: Bool {
        switch payload {
        case .none: true
        case .tuple(let items): items.isEmpty
        case .fields: false
        }
    }
}

/// Named SCALE types. Registration order is kept (for listings); names are unique.
public struct SCALETypeRegistry: Sendable {
    public private(set) var names: [String] = []
    private var types: [String: SCALEType] = [:]

    public init(_ entries: [(String, SCALEType)] = []) {
        for (name, type) in entries { register(name, type) }
    }

    public mutating func register(_ name: String, _ type: SCALEType) {
        precondition(types[name] == nil, "SCALE type \(name) registered twice")
        names.append(name)
        types[name] = type
    }

    public subscript(name: String) -> SCALEType? { types[name] }

    /// Follows `.named` references to a structural type (nil for a dangling name or a cycle of aliases).
    public func resolve(_ type: SCALEType) -> SCALEType? {
        var current = type
        var seen: Set<String> = []
        while case .named(let name) = current {
            guard seen.insert(name).inserted, let next = types[name] else { return nil }
            current = next
        }
        return current
    }

    /// What is wrong with the registry as a whole: names used but not registered, duplicate variant indices or
    /// names, duplicate field names, and `Option<Option<T>>` (which JSON's null could not tell apart).
    public func problems() -> [String] {
        var found: [String] = []
        func check(_ type: SCALEType, _ where_: String) {
            switch type {
            case .named(let name):
                if types[name] == nil { found.append("\(where_): unknown type \(name)") }
            case .vector(let inner):
                check(inner, where_)
            case .option(let inner):
                if case .option = resolve(inner) { found.append("\(where_): Option<Option<…>> has no JSON form") }
                check(inner, where_)
            case .tuple(let items):
                items.forEach { check($0, where_) }
            case .result(let ok, let error):
                check(ok, where_)
                check(error, where_)
            case .structure(let fields):
                checkFields(fields, where_)
            case .enumeration(let variants), .versioned(let variants):
                if Set(variants.map(\.index)).count != variants.count { found.append("\(where_): duplicate variant index") }
                if Set(variants.map(\.name)).count != variants.count { found.append("\(where_): duplicate variant name") }
                for variant in variants {
                    switch variant.payload {
                    case .none: break
                    case .tuple(let items): items.forEach { check($0, where_ + "." + variant.name) }
                    case .fields(let fields): checkFields(fields, where_ + "." + variant.name)
                    }
                }
            case .unit, .bool, .integer, .compact, .string, .bytes, .fixedBytes, .optionBool:
                break
            }
        }
        func checkFields(_ fields: [SCALEField], _ where_: String) {
            if Set(fields.map(\.name)).count != fields.count { found.append("\(where_): duplicate field name") }
            fields.forEach { check($0.type, where_ + "." + $0.name) }
        }
        for name in names { check(types[name]!, name) }
        return found
    }
}

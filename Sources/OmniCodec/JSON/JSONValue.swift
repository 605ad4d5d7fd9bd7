/// A JSON document as a value tree, the model every `--output json` renderer and JSON reader in omni uses.
///
/// Numbers keep their source text so that 64-bit and arbitrary-precision integers round-trip exactly; object keys
/// keep their insertion order so output is stable and reads in the order a command built it.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number in JSON syntax (`-12`, `3.5e10`). Construct through `.int`, `.double` or `init(number:)`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A finite double; non-finite values have no JSON form and become `null`.
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if abs(value) < 1e15, value == Double(Int64(value)) { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    public static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(pairs.map { ($0.key, $0.value) }))
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { self == .null }
    /// The number text, when this is a number.
    public var numberText: String? { if case .number(let n) = self { return n }; return nil }
    /// The number as an Int64 when it is an integer in range.
    public var int64Value: Int64? { numberText.flatMap { Int64($0) } }
    public var doubleValue: Double? { numberText.flatMap { Double($0) } }

    /// Member lookup on objects; nil for other kinds or missing keys.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// An insertion-ordered JSON object. Duplicate keys are refused by the parser; `subscript` set replaces in place.
public struct JSONObject: Equatable, Sendable, Sequence {
    public private(set) var entries: [(key: String, value: JSONValue)]

    public init() { entries = [] }
    public init(_ entries: [(String, JSONValue)]) { self.entries = entries.map { (key: $0.0, value: $0.1) } }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { entries.first(where: { $0.key.isExactly(key) })?.value }
        set {
            if let index = entries.firstIndex(where: { $0.key.isExactly(key) }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key: key, value: newValue))
            }
        }
    }

    public mutating func append(_ key: String, _ value: JSONValue) { self[key] = value }

    /// Appends a pair whose key the caller knows is new (the parser, which checks duplicates with a set): no
    /// linear search, so an object of n members parses in O(n), not O(n²).
    mutating func appendNewKey(_ key: String, _ value: JSONValue) { entries.append((key: key, value: value)) }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { entries.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key.isExactly($1.key) && $0.value == $1.value }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

/// One TOML 1.0 value.
public enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    /// Offset date-time, local date-time, local date or local time; see `TOMLDateTime.kind`.
    case dateTime(TOMLDateTime)
    /// Elements may have mixed types (TOML 1.0).
    case array([TOMLValue])
    case table(TOMLTable)

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var integerValue: Int64? { if case .integer(let n) = self { return n }; return nil }
    /// The value of a float, or of an integer as a Double.
    public var doubleValue: Double? {
        switch self {
        case .float(let d): return d
        case .integer(let n): return Double(n)
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var dateTimeValue: TOMLDateTime? { if case .dateTime(let d) = self { return d }; return nil }
    public var arrayValue: [TOMLValue]? { if case .array(let a) = self { return a }; return nil }
    public var tableValue: TOMLTable? { if case .table(let t) = self { return t }; return nil }

    /// Member of a table value; nil for other kinds or missing keys.
    public subscript(key: String) -> TOMLValue? { tableValue?[key] }

    /// The JSON form: tables become objects, date-times their source text, non-finite floats the strings
    /// `"inf"`, `"-inf"` and `"nan"` (JSON has no such numbers).
    public var jsonValue: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let n): return .int(n)
        case .float(let d):
            if d.isNaN { return .string("nan") }
            if d.isInfinite { return .string(d < 0 ? "-inf" : "inf") }
            return .double(d)
        case .bool(let b): return .bool(b)
        case .dateTime(let d): return .string(d.text)
        case .array(let items): return .array(items.map(\.jsonValue))
        case .table(let table): return table.jsonValue
        }
    }
}

/// A TOML table: keys in document order, values by key.
public struct TOMLTable: Equatable, Sendable, Sequence {
    public private(set) var entries: [(key: String, value: TOMLValue)]
    private var positions: [ExactText: Int]

    public init() {
        entries = []
        positions = [:]
    }

    /// A table from pairs; a later duplicate key replaces the earlier value.
    public init(_ pairs: [(String, TOMLValue)]) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> TOMLValue? {
        get { positions[ExactText(key)].map { entries[$0].value } }
        set {
            if let index = positions[ExactText(key)] {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                    positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { (ExactText($1.key), $0) })
                }
            } else if let newValue {
                positions[ExactText(key)] = entries.count
                entries.append((key, newValue))
            }
        }
    }

    /// The value at a key path through nested tables, e.g. `["profile", "default", "network"]`.
    /// An empty path or a step into a non-table gives nil.
    public func value(at path: [String]) -> TOMLValue? {
        guard let first = path.first, var value = self[first] else { return nil }
        for key in path.dropFirst() {
            guard let next = value[key] else { return nil }
            value = next
        }
        return value
    }

    /// The value at a dotted path written as TOML keys would be (`profile.default."my key"`); nil if the path
    /// does not parse or does not exist.
    public func value(atDottedPath path: String) -> TOMLValue? {
        guard let keys = try? TOMLParser.parseStandaloneKey(path) else { return nil }
        return value(at: keys)
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: TOMLValue)]> { entries.makeIterator() }

    public var jsonValue: JSONValue {
        .object(JSONObject(entries.map { ($0.key, $0.value.jsonValue) }))
    }

    public static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key.isExactly($1.key) && $0.value == $1.value }
    }
}

/// A TOML date-time, local date-time, local date or local time (RFC 3339 based), kept with its source text.
public struct TOMLDateTime: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case offsetDateTime = "datetime"
        case localDateTime = "datetime-local"
        case localDate = "date-local"
        case localTime = "time-local"
    }

    public let kind: Kind
    /// Exactly as written in the document.
    public let text: String
    /// Present for all kinds except `.localTime`.
    public let year: Int?
    public let month: Int?
    public let day: Int?
    /// Present for all kinds except `.localDate`.
    public let hour: Int?
    public let minute: Int?
    public let second: Int?
    /// Fractional-second digits as written (`"5"` for `.5`), nil when absent; precision is never lost.
    public let fraction: String?
    /// Minutes east of UTC for `.offsetDateTime` (`Z` is 0); nil otherwise.
    public let offsetMinutes: Int?

    public var description: String { text }

    /// Nanoseconds of the fraction (digits beyond the ninth are truncated).
    public var nanosecond: Int? {
        guard let fraction else { return hour == nil ? nil : 0 }
        let digits = fraction.prefix(9)
        return (Int(digits) ?? 0) * Int(pow10(9 - digits.count))
    }

    private func pow10(_ n: Int) -> Int { (0..<n).reduce(1) { value, _ in value * 10 } }

    /// Equal when they denote the same value, however written (`T`/`t`/space, `Z`/`z`, trailing zeros).
    public static func == (lhs: TOMLDateTime, rhs: TOMLDateTime) -> Bool {
        func trimmed(_ fraction: String?) -> String {
            var digits = fraction ?? ""
            while digits.last == "0" { digits.removeLast() }
            return digits
        }
        return lhs.kind == rhs.kind && lhs.year == rhs.year && lhs.month == rhs.month && lhs.day == rhs.day
            && lhs.hour == rhs.hour && lhs.minute == rhs.minute && lhs.second == rhs.second
            && trimmed(lhs.fraction) == trimmed(rhs.fraction) && lhs.offsetMinutes == rhs.offsetMinutes
    }
}

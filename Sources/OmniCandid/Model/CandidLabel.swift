/// A record field or variant case label: the numeric id that goes on the wire, and the name it came from when
/// known. Labels compare, hash and sort by id only, so `foo` and `_5097222_`-style ids of the same hash are equal.
public struct CandidLabel: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let id: UInt32
    /// The source name; nil for numeric ids (`5 = …`), positional tuple fields and labels read from the wire.
    public let name: String?

    /// A named label; its id is `Candid.hash(name)`.
    public init(_ name: String) {
        self.id = Candid.hash(name)
        self.name = name
    }

    /// A numeric label.
    public init(id: UInt32) {
        self.id = id
        self.name = nil
    }

    public init(id: UInt32, name: String?) {
        self.id = id
        self.name = name
    }

    public static func == (lhs: CandidLabel, rhs: CandidLabel) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public static func < (lhs: CandidLabel, rhs: CandidLabel) -> Bool { lhs.id < rhs.id }

    /// How the label is written in Candid text: the name (quoted when it is not an identifier) or the number.
    public var description: String {
        guard let name else { return String(id) }
        return CandidLabel.isPlainIdentifier(name) ? name : CandidLabel.quoted(name)
    }

    /// For messages: names in quotes, numbers bare.
    var quotedDescription: String {
        guard let name else { return String(id) }
        return CandidLabel.quoted(name)
    }

    /// Candid keywords; a name equal to one must be quoted.
    static let keywords: Set<String> = [
        "import", "service", "func", "type", "opt", "vec", "record", "variant", "blob", "principal", "nat", "nat8",
        "nat16", "nat32", "nat64", "int", "int8", "int16", "int32", "int64", "float32", "float64", "bool", "text",
        "null", "reserved", "empty", "oneway", "query", "composite_query", "true", "false",
    ]

    /// An ASCII identifier that is not a keyword, so it can be written without quotes.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        for unit in name.utf8 where !(isLetter(unit) || isDigit(unit) || unit == UInt8(ascii: "_")) { return false }
        return !keywords.contains(name)
    }

    static func isLetter(_ unit: UInt8) -> Bool {
        (unit >= UInt8(ascii: "a") && unit <= UInt8(ascii: "z")) || (unit >= UInt8(ascii: "A") && unit <= UInt8(ascii: "Z"))
    }

    static func isDigit(_ unit: UInt8) -> Bool { unit >= UInt8(ascii: "0") && unit <= UInt8(ascii: "9") }

    /// A Candid text literal for `text`, escaping what the text grammar requires.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0) {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension Candid {
    /// The Candid field-name hash: `sum(utf8[i] * 223^(k-i)) mod 2^32` (spec "Shorthand: Symbolic Field Ids").
    public static func hash(_ name: String) -> UInt32 {
        var hash: UInt32 = 0
        for unit in name.utf8 { hash = hash &* 223 &+ UInt32(unit) }
        return hash
    }
}

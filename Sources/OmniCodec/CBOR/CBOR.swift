/// One CBOR data item (RFC 8949), as decoded or as built for encoding.
///
/// The model is faithful enough to re-encode what was read: floats remember the width they were read in, and
/// indefinite-length items have their own cases (produced by the decoder only when
/// `CBORDecodingOptions.preserveIndefiniteLength` is set, so ordinary code can match `.array`/`.bytes` alone).
/// Equality and hashing follow the CBOR data model, not the serialization: `1.5` read as a half equals `1.5` read
/// as a double, and an indefinite array equals the definite array with the same items.
public enum CBOR: Sendable {
    /// Major type 0: 0 … 2^64−1.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − n, stored as n so that −2^64 … −1 all fit.
    case negative(UInt64)
    /// Major type 2, definite length.
    case bytes([UInt8])
    /// Major type 3, definite length.
    case text(String)
    /// Major type 4, definite length.
    case array([CBOR])
    /// Major type 5, definite length: pairs in input order; keys may be any data item.
    case map([Pair])
    /// Major type 6: a tag number and its content. Bignums (tags 2 and 3) stay here; see `bigInteger`.
    indirect case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    /// Any other simple value: 0 … 19 or 32 … 255 (20 … 23 are the cases above; 24 … 31 do not exist).
    case simple(UInt8)
    /// A float and the width it was read in or should be written in.
    case float(Double, width: FloatWidth)
    /// An indefinite-length byte string and its definite chunks.
    case byteChunks([[UInt8]])
    /// An indefinite-length text string and its definite chunks.
    case textChunks([String])
    case indefiniteArray([CBOR])
    case indefiniteMap([Pair])

    public typealias Pair = (key: CBOR, value: CBOR)

    /// The three IEEE 754 widths CBOR carries (major type 7, additional information 25, 26, 27).
    public enum FloatWidth: Int, Sendable, CaseIterable {
        case half = 2
        case single = 4
        case double = 8
    }

    /// The self-described CBOR tag (RFC 8949 §3.4.6), the magic `d9 d9 f7` prefix.
    public static let selfDescribeTag: UInt64 = 55799
}

// MARK: - Construction helpers

extension CBOR {
    /// A signed 64-bit integer in the major type it belongs to.
    public static func integer(_ value: Int64) -> CBOR {
        // For negative v, −1 − v equals the bitwise complement, which cannot overflow.
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(bitPattern: ~value))
    }

    /// An integer of any size given as sign and big-endian magnitude: a plain integer when it fits in a CBOR head
    /// (preferred serialization), otherwise a bignum (tag 2, or tag 3 carrying magnitude − 1).
    public static func bigInteger(negative: Bool, magnitude: [UInt8]) -> CBOR {
        let trimmed = Array(magnitude.drop(while: { $0 == 0 }))
        if trimmed.isEmpty { return .unsigned(0) }
        if !negative {
            if trimmed.count <= 8 { return .unsigned(BigEndian.uint64(trimmed)) }
            return .tagged(2, .bytes(trimmed))
        }
        let n = BigEndian.decrement(trimmed)
        if n.count <= 8 { return .negative(BigEndian.uint64(n)) }
        return .tagged(3, .bytes(n))
    }

    /// `value` wrapped in the self-described CBOR tag 55799.
    public var selfDescribed: CBOR { .tagged(CBOR.selfDescribeTag, self) }
}

// MARK: - Accessors for scripts of code

extension CBOR {
    /// The value of an unsigned integer.
    public var uint: UInt64? { if case .unsigned(let n) = self { return n }; return nil }

    /// The value of an unsigned or negative integer that fits in Int64.
    public var int: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// The bytes of a byte string (chunks joined).
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let b): return b
        case .byteChunks(let chunks): return Array(chunks.joined())
        default: return nil
        }
    }

    /// The text of a text string (chunks joined).
    public var text: String? {
        switch self {
        case .text(let s): return s
        case .textChunks(let chunks): return chunks.joined()
        default: return nil
        }
    }

    /// The items of an array, definite or not.
    public var array: [CBOR]? {
        switch self {
        case .array(let items), .indefiniteArray(let items): return items
        default: return nil
        }
    }

    /// The pairs of a map, definite or not, in input order.
    public var map: [Pair]? {
        switch self {
        case .map(let pairs), .indefiniteMap(let pairs): return pairs
        default: return nil
        }
    }

    /// Tag number and content of a tagged item.
    public var tag: (number: UInt64, content: CBOR)? {
        if case .tagged(let number, let content) = self { return (number, content) }
        return nil
    }

    /// The item under all its tags.
    public var untagged: CBOR {
        var item = self
        while case .tagged(_, let content) = item { item = content }
        return item
    }

    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The value of a float of any width.
    public var double: Double? { if case .float(let d, _) = self { return d }; return nil }

    /// Sign and big-endian magnitude (no leading zeros; empty for zero) of an integer or bignum (tags 2 and 3
    /// with a byte string). Negative values are −magnitude.
    public var bigInteger: (negative: Bool, magnitude: [UInt8])? {
        switch self {
        case .unsigned(let n): return (false, BigEndian.bytes(n))
        case .negative(let n): return (true, BigEndian.increment(BigEndian.bytes(n)))
        case .tagged(2, let content):
            guard let b = content.bytes else { return nil }
            return (false, Array(b.drop(while: { $0 == 0 })))
        case .tagged(3, let content):
            guard let b = content.bytes else { return nil }
            return (true, BigEndian.increment(Array(b.drop(while: { $0 == 0 }))))
        default: return nil
        }
    }

    /// Map lookup by text key (first match); nil when this is not a map or the key is absent.
    public subscript(key: String) -> CBOR? {
        guard let pairs = map else { return nil }
        for pair in pairs {
            switch pair.key {
            case .text(let k) where k.isExactly(key): return pair.value
            case .textChunks where pair.key.text?.isExactly(key) == true: return pair.value
            default: continue
            }
        }
        return nil
    }

    /// Map lookup by any key, compared in the data model (first match).
    public subscript(key: CBOR) -> CBOR? {
        map?.first(where: { $0.key == key })?.value
    }

    /// Array element; nil when out of range or not an array.
    public subscript(index: Int) -> CBOR? {
        guard let items = array, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

// MARK: - Literals

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) { self = .map(elements.map { (key: $0.0, value: $0.1) }) }
    public init(nilLiteral: ()) { self = .null }
    /// A float literal is written in the shortest width that holds it exactly.
    public init(floatLiteral value: Double) { self = .float(value, width: CBORFloatBits.shortestWidth(value)) }
}

// MARK: - Data-model equality

extension CBOR: Equatable, Hashable {
    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case (.simple(let a), .simple(let b)): return a == b
        case (.float(let a, _), .float(let b, _)): return a.bitPattern == b.bitPattern
        case (.tagged(let ta, let a), .tagged(let tb, let b)): return ta == tb && a == b
        case (.bytes, .bytes), (.bytes, .byteChunks), (.byteChunks, .bytes), (.byteChunks, .byteChunks):
            return lhs.bytes == rhs.bytes
        case (.text, .text), (.text, .textChunks), (.textChunks, .text), (.textChunks, .textChunks):
            return (lhs.text ?? "").isExactly(rhs.text ?? "")
        case (.array, .array), (.array, .indefiniteArray), (.indefiniteArray, .array),
            (.indefiniteArray, .indefiniteArray):
            return lhs.array == rhs.array
        case (.map, .map), (.map, .indefiniteMap), (.indefiniteMap, .map), (.indefiniteMap, .indefiniteMap):
            guard let a = lhs.map, let b = rhs.map, a.count == b.count else { return false }
            return zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n): hasher.combine(0 as UInt8); hasher.combine(n)
        case .negative(let n): hasher.combine(1 as UInt8); hasher.combine(n)
        case .bytes, .byteChunks: hasher.combine(2 as UInt8); hasher.combine(bytes ?? [])
        case .text, .textChunks: hasher.combine(3 as UInt8); hasher.combine(ExactText(text ?? ""))
        case .array, .indefiniteArray:
            hasher.combine(4 as UInt8)
            for item in array ?? [] { hasher.combine(item) }
        case .map, .indefiniteMap:
            hasher.combine(5 as UInt8)
            for pair in map ?? [] { hasher.combine(pair.key); hasher.combine(pair.value) }
        case .tagged(let number, let content): hasher.combine(6 as UInt8); hasher.combine(number); hasher.combine(content)
        case .bool(let b): hasher.combine(7 as UInt8); hasher.combine(b)
        case .null: hasher.combine(8 as UInt8)
        case .undefined: hasher.combine(9 as UInt8)
        case .simple(let n): hasher.combine(10 as UInt8); hasher.combine(n)
        case .float(let d, _): hasher.combine(11 as UInt8); hasher.combine(d.bitPattern)
        }
    }
}

// MARK: - Big-endian helpers for bignums

enum BigEndian {
    static func uint64(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Minimal big-endian bytes of `n` (empty for zero).
    static func bytes(_ n: UInt64) -> [UInt8] {
        let count = (64 - n.leadingZeroBitCount + 7) / 8
        return (0..<count).map { UInt8(truncatingIfNeeded: n >> (8 * UInt64(count - 1 - $0))) }
    }

    /// magnitude + 1, minimal.
    static func increment(_ magnitude: [UInt8]) -> [UInt8] {
        var out = magnitude
        var i = out.count - 1
        while i >= 0 {
            if out[i] == 0xFF { out[i] = 0; i -= 1 } else { out[i] += 1; return out }
        }
        return [1] + out
    }

    /// magnitude − 1 for a non-zero minimal magnitude, minimal.
    static func decrement(_ magnitude: [UInt8]) -> [UInt8] {
        var out = magnitude
        var i = out.count - 1
        while i >= 0 {
            if out[i] == 0 { out[i] = 0xFF; i -= 1 } else { out[i] -= 1; break }
        }
        return Array(out.drop(while: { $0 == 0 }))
    }
}

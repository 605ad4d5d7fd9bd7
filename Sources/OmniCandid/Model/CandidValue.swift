import OmniCodec

/// A Candid value, typed by its case.
///
/// Decoding with an expected type, parsing text with a type, and building JSON with a type all produce values
/// whose record and variant labels carry the field names from that type. Records keep their fields sorted by id.
/// `vec nat8` values are produced as `.blob`; `==` treats `.blob` and a `.vec` of `.nat8` as equal.
public enum CandidValue: Sendable {
    case null
    case bool(Bool)
    case nat(BigUInt)
    case int(BigInt)
    case nat8(UInt8)
    case nat16(UInt16)
    case nat32(UInt32)
    case nat64(UInt64)
    case int8(Int8)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case float32(Float)
    case float64(Double)
    case text(String)
    /// The value of type `reserved` (anything coerced to `reserved`).
    case reserved
    case principal(Principal)
    /// `opt v`, or `null` of an option type when the payload is nil.
    indirect case opt(CandidValue?)
    case vec([CandidValue])
    /// A `vec nat8` held as bytes.
    case blob([UInt8])
    case record([CandidFieldValue])
    indirect case variant(CandidFieldValue)
    /// A public method reference `func "principal".method`.
    indirect case function(Principal, method: String)
    case service(Principal)

    /// A record of positional fields `0, 1, …`.
    public static func tuple(_ values: [CandidValue]) -> CandidValue {
        .record(values.enumerated().map { CandidFieldValue(CandidLabel(id: UInt32($0.offset)), $0.element) })
    }

    /// A record from named fields, sorted by id as records must be.
    public static func record(_ fields: KeyValuePairs<String, CandidValue>) -> CandidValue {
        .record(fields.map { CandidFieldValue(CandidLabel($0.key), $0.value) }.sorted { $0.label.id < $1.label.id })
    }

    public static func variant(_ name: String, _ value: CandidValue = .null) -> CandidValue {
        .variant(CandidFieldValue(CandidLabel(name), value))
    }

    /// A field by name or id (records only).
    public subscript(field name: String) -> CandidValue? { self[label: CandidLabel(name)] }

    public subscript(label label: CandidLabel) -> CandidValue? {
        guard case .record(let fields) = self else { return nil }
        return fields.first { $0.label.id == label.id }?.value
    }
}

/// A labelled value inside a record or variant.
public struct CandidFieldValue: Sendable, Equatable {
    public var label: CandidLabel
    public var value: CandidValue

    public init(_ label: CandidLabel, _ value: CandidValue) {
        self.label = label
        self.value = value
    }
}

extension CandidValue: Equatable {
    /// Host-value equality as the spec's test suite uses it: same case and payload, record fields compared by id,
    /// `.blob` equal to a `.vec` of `.nat8`, floats equal when numerically equal or both the same NaN bits.
    public static func == (lhs: CandidValue, rhs: CandidValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null), (.reserved, .reserved): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.nat(let a), .nat(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.nat8(let a), .nat8(let b)): return a == b
        case (.nat16(let a), .nat16(let b)): return a == b
        case (.nat32(let a), .nat32(let b)): return a == b
        case (.nat64(let a), .nat64(let b)): return a == b
        case (.int8(let a), .int8(let b)): return a == b
        case (.int16(let a), .int16(let b)): return a == b
        case (.int32(let a), .int32(let b)): return a == b
        case (.int64(let a), .int64(let b)): return a == b
        case (.float32(let a), .float32(let b)): return a == b || a.bitPattern == b.bitPattern
        case (.float64(let a), .float64(let b)): return a == b || a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): return a == b
        case (.principal(let a), .principal(let b)): return a == b
        case (.service(let a), .service(let b)): return a == b
        case (.function(let a, let m), .function(let b, let n)): return a == b && m == n
        case (.opt(let a), .opt(let b)): return a == b
        case (.vec(let a), .vec(let b)): return a == b
        case (.blob(let a), .blob(let b)): return a == b
        case (.blob(let bytes), .vec(let values)), (.vec(let values), .blob(let bytes)):
            return bytes.count == values.count && zip(bytes, values).allSatisfy { byte, value in
                if case .nat8(let other) = value { return other == byte }
                return false
            }
        case (.record(let a), .record(let b)): return a == b
        case (.variant(let a), .variant(let b)): return a == b
        default: return false
        }
    }
}

extension CandidValue {
    public var boolValue: Bool? { if case .bool(let flag) = self { return flag }; return nil }
    public var textValue: String? { if case .text(let text) = self { return text }; return nil }

    /// Any unsigned or non-negative integer value as a `BigUInt`.
    public var natValue: BigUInt? {
        switch self {
        case .nat(let n): return n
        case .nat8(let n): return BigUInt(UInt64(n))
        case .nat16(let n): return BigUInt(UInt64(n))
        case .nat32(let n): return BigUInt(UInt64(n))
        case .nat64(let n): return BigUInt(n)
        default: return intValue.flatMap { $0.isNegative ? nil : $0.magnitude }
        }
    }

    /// Any integer value as a `BigInt`.
    public var intValue: BigInt? {
        switch self {
        case .int(let n): return n
        case .int8(let n): return BigInt(Int64(n))
        case .int16(let n): return BigInt(Int64(n))
        case .int32(let n): return BigInt(Int64(n))
        case .int64(let n): return BigInt(n)
        case .nat, .nat8, .nat16, .nat32, .nat64: return natValue.map { BigInt($0) }
        default: return nil
        }
    }

    /// Bytes of a blob (or of a vector of `nat8` values).
    public var blobValue: [UInt8]? {
        switch self {
        case .blob(let bytes): return bytes
        case .vec(let elements):
            var bytes: [UInt8] = []
            for element in elements {
                guard case .nat8(let byte) = element else { return nil }
                bytes.append(byte)
            }
            return bytes
        default: return nil
        }
    }

    /// The principal of a principal or service reference.
    public var principalValue: Principal? {
        switch self {
        case .principal(let principal), .service(let principal): return principal
        default: return nil
        }
    }

    /// Elements of a vector (a blob's bytes as `nat8` values).
    public var vecValue: [CandidValue]? {
        switch self {
        case .vec(let elements): return elements
        case .blob(let bytes): return bytes.map { .nat8($0) }
        default: return nil
        }
    }
}

extension CandidValue {
    /// Whether a record or variant inside carries a label known only by its number (tuple positions excepted):
    /// the sign that a message was decoded without its types, so field names could not be shown.
    public var hasHashedLabels: Bool {
        switch self {
        case .record(let fields):
            let isTuple = fields.enumerated().allSatisfy { UInt32($0.offset) == $0.element.label.id }
            return (!isTuple && fields.contains { $0.label.name == nil }) || fields.contains { $0.value.hasHashedLabels }
        case .variant(let field): return field.label.name == nil || field.value.hasHashedLabels
        case .opt(let payload?): return payload.hasHashedLabels
        case .vec(let elements): return elements.first?.hasHashedLabels ?? false
        default: return false
        }
    }
}

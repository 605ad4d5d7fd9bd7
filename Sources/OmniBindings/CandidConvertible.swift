import OmniCandid
import OmniCodec

/// A Swift type that stands for a Candid type: converted to and from OmniCandid's `CandidValue`, which the Candid
/// encoder and decoder read and write at the interface's types.
///
/// Generated records, variants, references and wrappers conform, and so do the Swift types Candid's primitives map to:
/// `Bool`, `UInt8`…`UInt64` (`nat8`…`nat64`), `Int8`…`Int64` (`int8`…`int64`), `BigUInt` (`nat`), `BigInt`
/// (`int`), `Float` (`float32`), `Double` (`float64`), `String` (`text`), `Principal`, `Optional` (`opt`) and
/// `Array` (`vec`; `[UInt8]` is `blob`), plus the markers `CandidNull`, `CandidReserved` and `CandidEmpty`.
///
/// Conversion from a value is strict about shape: a value decoded at the interface's types always fits, because the
/// decoder has already applied Candid's subtyping rules (extra record fields dropped, absent options null, `nat`
/// read as `int`); anything else is a `CandidBindingError` of kind `.typeMismatch` naming where it is.
public protocol CandidConvertible: Sendable {
    /// Converts a value of this type's Candid type.
    init(candid value: CandidValue) throws(CandidBindingError)
    /// This value as Candid.
    var candidValue: CandidValue { get }
    /// The value a record field of this type takes when the record does not have it: `nil` for options, the only
    /// value of `null` and `reserved`; nil (the field is required) for every other type.
    static var candidAbsentValue: Self? { get }
}

extension CandidConvertible {
    public static var candidAbsentValue: Self? { nil }
}

// MARK: - Primitives

extension Bool: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .bool(let flag) = value else { throw .mismatch(expected: "bool", found: value) }
        self = flag
    }
    public var candidValue: CandidValue { .bool(self) }
}

extension String: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .text(let text) = value else { throw .mismatch(expected: "text", found: value) }
        self = text
    }
    public var candidValue: CandidValue { .text(self) }
}

extension UInt8: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .nat8(let number) = value else { throw .mismatch(expected: "nat8", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .nat8(self) }
}

extension UInt16: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .nat16(let number) = value else { throw .mismatch(expected: "nat16", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .nat16(self) }
}

extension UInt32: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .nat32(let number) = value else { throw .mismatch(expected: "nat32", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .nat32(self) }
}

extension UInt64: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .nat64(let number) = value else { throw .mismatch(expected: "nat64", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .nat64(self) }
}

extension Int8: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .int8(let number) = value else { throw .mismatch(expected: "int8", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .int8(self) }
}

extension Int16: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .int16(let number) = value else { throw .mismatch(expected: "int16", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .int16(self) }
}

extension Int32: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .int32(let number) = value else { throw .mismatch(expected: "int32", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .int32(self) }
}

extension Int64: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .int64(let number) = value else { throw .mismatch(expected: "int64", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .int64(self) }
}

/// `nat`: arbitrary precision.
extension BigUInt: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .nat(let number) = value else { throw .mismatch(expected: "nat", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .nat(self) }
}

/// `int`: arbitrary precision. A `nat` value is accepted too (`nat <: int`).
extension BigInt: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        switch value {
        case .int(let number): self = number
        case .nat(let number): self = BigInt(number)
        default: throw .mismatch(expected: "int", found: value)
        }
    }
    public var candidValue: CandidValue { .int(self) }
}

extension Float: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .float32(let number) = value else { throw .mismatch(expected: "float32", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .float32(self) }
}

extension Double: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .float64(let number) = value else { throw .mismatch(expected: "float64", found: value) }
        self = number
    }
    public var candidValue: CandidValue { .float64(self) }
}

extension Principal: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .principal(let principal) = value else { throw .mismatch(expected: "principal", found: value) }
        self = principal
    }
    public var candidValue: CandidValue { .principal(self) }
}

// MARK: - opt and vec

/// `opt T`: `nil` is `null`. `T??` keeps `opt opt T`'s two kinds of absence apart (`nil` and `.some(nil)`).
extension Optional: CandidConvertible where Wrapped: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        switch value {
        case .opt(nil), .null:
            self = nil
        case .opt(let payload?):
            do throws(CandidBindingError) { self = .some(try Wrapped(candid: payload)) } catch { throw error.inside("opt") }
        default:
            throw .mismatch(expected: "opt", found: value)
        }
    }

    public var candidValue: CandidValue {
        switch self {
        case nil: .opt(nil)
        case let wrapped?: .opt(wrapped.candidValue)
        }
    }

    public static var candidAbsentValue: Self? { .some(nil) }
}

/// `vec T`; `[UInt8]` is `blob` and is converted as bytes, without a value per element.
extension Array: CandidConvertible where Element: CandidConvertible {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        switch value {
        case .blob(let bytes):
            if Element.self == UInt8.self, let same = bytes as? [Element] {
                self = same
                return
            }
            self = try Array.converting(bytes.map { CandidValue.nat8($0) })
        case .vec(let elements):
            self = try Array.converting(elements)
        default:
            throw .mismatch(expected: "vec", found: value)
        }
    }

    private static func converting(_ elements: [CandidValue]) throws(CandidBindingError) -> [Element] {
        var converted: [Element] = []
        converted.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(CandidBindingError) { converted.append(try Element(candid: element)) } catch {
                throw error.inside("vec[\(index)]")
            }
        }
        return converted
    }

    public var candidValue: CandidValue {
        // Checked by type: an empty array of any element type would cast to [UInt8].
        if Element.self == UInt8.self, let bytes = self as? [UInt8] { return .blob(bytes) }
        return .vec(map(\.candidValue))
    }
}

// MARK: - Markers

/// `null`: a type with one value.
public struct CandidNull: CandidConvertible, Hashable {
    /// The value `null`.
    public init() {}
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .null = value else { throw .mismatch(expected: "null", found: value) }
    }
    public var candidValue: CandidValue { .null }
    public static var candidAbsentValue: CandidNull? { CandidNull() }
}

/// `reserved`: any value may be sent for it, and nothing is kept of what arrives.
public struct CandidReserved: CandidConvertible, Hashable {
    /// The value sent for a `reserved` argument or field.
    public init() {}
    public init(candid value: CandidValue) throws(CandidBindingError) {}
    public var candidValue: CandidValue { .reserved }
    public static var candidAbsentValue: CandidReserved? { CandidReserved() }
}

/// `empty`: a type without values. A record with an `empty` field or a method taking one cannot be called;
/// decoding one always fails.
public enum CandidEmpty: CandidConvertible, Hashable {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        throw CandidBindingError(.typeMismatch, "no value has type empty (found \(CandidBindingError.describe(value)))")
    }
    public var candidValue: CandidValue { switch self {} }
}

// MARK: - References

/// A generated type for a Candid `func` type: a public method of a canister, typed by the function type it has (two
/// function types get two Swift types, so one cannot be passed for the other).
public protocol CandidFunctionReference: CandidConvertible, Hashable {
    /// The canister that has the method.
    var principal: Principal { get }
    var method: String { get }
    init(principal: Principal, method: String)
}

extension CandidFunctionReference {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .function(let principal, let method) = value else { throw .mismatch(expected: "func reference", found: value) }
        self.init(principal: principal, method: method)
    }
    public var candidValue: CandidValue { .function(principal, method: method) }
}

/// A generated type for a Candid `service` type: a canister, typed by the interface it has.
public protocol CandidServiceReference: CandidConvertible, Hashable {
    var principal: Principal { get }
    init(principal: Principal)
}

extension CandidServiceReference {
    public init(candid value: CandidValue) throws(CandidBindingError) {
        guard case .service(let principal) = value else { throw .mismatch(expected: "service reference", found: value) }
        self.init(principal: principal)
    }
    public var candidValue: CandidValue { .service(principal) }
}

import OmniCandid

/// The conversions generated code is written in: records and variants between their Swift types and `CandidValue`.
/// Each takes the Candid name of what it converts, for error messages; ids are the labels' wire ids.
public enum CandidBinding {
    /// A record value from its fields (already in id order, as generated code lists them).
    public static func record(_ fields: [CandidFieldValue]) -> CandidValue { .record(fields) }

    /// One record field.
    public static func field(_ id: UInt32, _ name: String?, _ value: some CandidConvertible) -> CandidFieldValue {
        CandidFieldValue(CandidLabel(id: id, name: name), value.candidValue)
    }

    /// A variant value of the case `id` with its payload (`null` for a case without one).
    public static func variant(_ id: UInt32, _ name: String?, _ payload: some CandidConvertible) -> CandidValue {
        .variant(CandidFieldValue(CandidLabel(id: id, name: name), payload.candidValue))
    }

    /// A variant value of a case without payload.
    public static func variant(_ id: UInt32, _ name: String?) -> CandidValue {
        .variant(CandidFieldValue(CandidLabel(id: id, name: name), .null))
    }

    /// The case and payload of a variant value of the Swift type `type`.
    public static func variantCase(of value: CandidValue, type: String) throws(CandidBindingError) -> (id: UInt32, payload: CandidValue) {
        guard case .variant(let field) = value else { throw CandidBindingError.mismatch(expected: "variant \(type)", found: value) }
        return (field.label.id, field.value)
    }

    /// A case's payload as `T`.
    public static func payload<T: CandidConvertible>(_ value: CandidValue, case name: String) throws(CandidBindingError) -> T {
        do throws(CandidBindingError) { return try T(candid: value) } catch { throw error.inside("variant case \"\(name)\"") }
    }

    /// A value as `T` (for wrapper types, whose one stored value has the alias's type).
    public static func convert<T: CandidConvertible>(_ value: CandidValue) throws(CandidBindingError) -> T {
        try T(candid: value)
    }

    /// The error for a case the Swift type does not have: strict variants, as Candid's are (a variant decoded at the
    /// interface's type never has one; a value built by hand may).
    public static func unknownCase(_ id: UInt32, _ payload: CandidValue, type: String) -> CandidBindingError {
        CandidBindingError(.typeMismatch, "variant \(type) has no case with id \(id)")
    }
}

/// Reads the fields of a record value, in the id order generated code asks for them.
public struct CandidRecordReader {
    private let fields: [CandidFieldValue]
    private let type: String
    private var cursor = 0

    /// The record `value`, converted to the Swift type `type` (named in errors).
    public init(_ value: CandidValue, type: String) throws(CandidBindingError) {
        guard case .record(let fields) = value else { throw CandidBindingError.mismatch(expected: "record \(type)", found: value) }
        self.fields = fields
        self.type = type
    }

    /// The field `id` as `T`; absent, it takes `T.candidAbsentValue` (options are nil) or is an error.
    public mutating func field<T: CandidConvertible>(_ id: UInt32, _ name: String?) throws(CandidBindingError) -> T {
        let component = name.map { "record field \"\($0)\"" } ?? "record field \(id)"
        guard let value = find(id) else {
            guard let absent = T.candidAbsentValue else {
                throw CandidBindingError(.typeMismatch, "record \(type) has no field " + (name.map { "\"\($0)\"" } ?? String(id)))
            }
            return absent
        }
        do throws(CandidBindingError) { return try T(candid: value) } catch { throw error.inside(component) }
    }

    /// Fields come sorted by id and are asked for in id order: usually the next one is it.
    private mutating func find(_ id: UInt32) -> CandidValue? {
        if cursor < fields.count, fields[cursor].label.id == id {
            cursor += 1
            return fields[cursor - 1].value
        }
        guard let index = fields.firstIndex(where: { $0.label.id == id }) else { return nil }
        cursor = index + 1
        return fields[index].value
    }
}

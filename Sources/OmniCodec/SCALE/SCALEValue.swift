/// A decoded SCALE value, shaped by its `SCALEType` (the type, not the value, decides bytes and JSON form).
public indirect enum SCALEValue: Sendable, Equatable {
    case unit
    case bool(Bool)
    /// Every fixed-width and compact integer.
    case integer(UInt128)
    case string(String)
    /// `Vec<u8>` and `[u8; N]`.
    case bytes([UInt8])
    /// `Vec<T>` items and tuple members.
    case sequence([SCALEValue])
    /// `Option<T>` and `OptionBool` (whose payload is `.bool`).
    case option(SCALEValue?)
    /// Struct fields (and a fields variant's payload), by name; the type gives the order.
    case record([String: SCALEValue])
    /// An enum or versioned value: the variant's name and its payload — `.unit` for a unit variant, the value for a
    /// one-item tuple variant, `.sequence` for a longer tuple, `.record` for a fields variant.
    case variant(String, SCALEValue)
    /// `Result::Ok` / `Result::Err`.
    case ok(SCALEValue)
    case err(SCALEValue)

    public static let absent = SCALEValue.option(nil)
    public static func some(_ value: SCALEValue) -> SCALEValue { .option(value) }
    public static func unitVariant(_ name: String) -> SCALEValue { .variant(name, .unit) }
    public static func int<T: BinaryInteger>(_ value: T) -> SCALEValue { .integer(UInt128(value)) }

    /// A struct field (or a fields variant's field) by name.
    public subscript(field: String) -> SCALEValue? {
        switch self {
        case .record(let fields): fields[field]
        case .variant(_, let payload): payload[field]
        default: nil
        }
    }

    public var variantName: String? { if case .variant(let name, _) = self { return name }; return nil }
    public var variantPayload: SCALEValue? { if case .variant(_, let payload) = self { return payload }; return nil }
    public var boolValue: Bool? { if case .bool(let value) = self { return value }; return nil }
    public var integerValue: UInt128? { if case .integer(let value) = self { return value }; return nil }
    public var stringValue: String? { if case .string(let value) = self { return value }; return nil }
    public var bytesValue: [UInt8]? { if case .bytes(let value) = self { return value }; return nil }
    public var sequenceValue: [SCALEValue]? { if case .sequence(let value) = self { return value }; return nil }
    /// `.some(nil)` for None, `.some(v)` for Some(v), nil when this is no option.
    public var optionValue: SCALEValue?? { if case .option(let value) = self { return .some(value) }; return nil }
}

/// A type that can be parsed from one command-line value.
///
/// Conforming enums get completion candidates and "expected one of …" messages for free through
/// `CaseIterable` + `RawRepresentable<String>`.
public protocol ArgumentValue {
    /// Parses the text of a value; nil means invalid (the framework builds the error message).
    init?(argument: String)
    /// What a valid value looks like, for error messages ("a number of seconds like 30s, 5m").
    static var expectation: String { get }
    /// Every accepted spelling, when the set is closed (drives completions and help).
    static var allValueStrings: [String] { get }
}

extension ArgumentValue {
    public static var allValueStrings: [String] { [] }
}

extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
    public static var expectation: String { "one of " + allValueStrings.joined(separator: ", ") }
}

extension String: ArgumentValue {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "text" }
}

extension Int: ArgumentValue {
    public init?(argument: String) { self.init(argument.replacingOccurrences(of: "_", with: "")) }
    public static var expectation: String { "an integer" }
}

extension UInt64: ArgumentValue {
    public init?(argument: String) { self.init(argument.replacingOccurrences(of: "_", with: "")) }
    public static var expectation: String { "a non-negative integer" }
}

extension Double: ArgumentValue {
    public init?(argument: String) {
        guard let value = Double(argument), value.isFinite else { return nil }
        self = value
    }
    public static var expectation: String { "a number" }
}

extension Bool: ArgumentValue {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "true", "yes", "on", "1": self = true
        case "false", "no", "off", "0": self = false
        default: return nil
        }
    }
    public static var expectation: String { "true or false" }
    public static var allValueStrings: [String] { ["true", "false"] }
}

/// A duration given as `250ms`, `30s`, `5m`, `2h`, `1d` or a bare number of seconds.
extension Duration: ArgumentValue {
    public init?(argument: String) {
        let units: [(suffix: String, factor: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        var text = Substring(argument.trimmingCharacters(in: .whitespaces))
        var factor = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            text = text.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        guard let number = Double(text), number.isFinite, number >= 0, number * factor < 1e12 else { return nil }
        self = .milliseconds(Int64((number * factor * 1000).rounded()))
    }

    public static var expectation: String { "a duration like 250ms, 30s, 5m, 2h (a bare number is seconds)" }

    /// The duration in seconds as a Double (for timeouts handed to C APIs and JSON output).
    public var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

import Foundation

import OmniCodec

/// A type that can be parsed from one command-line value.
///
/// Conforming enums get completion candidates and "expected one of …" messages for free through
/// `CaseIterable` + `RawRepresentable<String>`.
public protocol ArgumentValue {
    /// Parses the text of a value; nil means invalid (the framework builds the error message from `expectation`).
    init?(argument: String)
    /// What a valid value looks like, for error messages ("a number of seconds like 30s, 5m").
    static var expectation: String { get }
    /// Every accepted spelling, when the set is closed (drives completions and help).
    static var allValueStrings: [String] { get }
    /// True for values that are data (keys, ids, hex, times) rather than a choice or a setting of the command line:
    /// a value that fails to parse is then malformed input (exit 3), not a usage error (exit 2).
    static var isData: Bool { get }
    /// Why `text` is invalid, when a type can say more than `expectation` ("2150-… is after 2100"); nil for valid.
    static func problem(with text: String) -> String?
    /// The value as a user would type it, for defaults in help ("5m", not "300.0 seconds").
    var argumentText: String { get }
}

extension ArgumentValue {
    public static var allValueStrings: [String] { [] }
    public static var isData: Bool { false }
    public static func problem(with text: String) -> String? { Self(argument: text) == nil ? "expected " + expectation : nil }
    public var argumentText: String { "\(self)" }
}

extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
    public static var expectation: String { "one of " + allValueStrings.joined(separator: ", ") }
    public var argumentText: String { rawValue }
}

extension String: ArgumentValue {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "text" }
}

extension Int: ArgumentValue {
    public init?(argument: String) { self.init(argument.replacing("_", with: "")) }
    public static var expectation: String { "an integer" }
}

extension UInt64: ArgumentValue {
    public init?(argument: String) { self.init(argument.replacing("_", with: "")) }
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
        var text = Substring(argument.trimmingWhitespaceAndNewlines())
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

    /// The duration in nanoseconds, saturating at the bounds of UInt64 (negative durations are 0).
    public var nanosecondsValue: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? UInt64.max : sum
    }

    /// The largest whole unit that represents the duration exactly: `300s` is `5m`, `1500ms` stays `1500ms`.
    public var argumentText: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        for (suffix, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}

/// A size in bytes: `1048576`, `512KiB`, `2MiB`, `10MB`, `64k`.
public struct ByteCount: ArgumentValue, Equatable, Sendable {
    public let bytes: Int

    public init(bytes: Int) { self.bytes = bytes }

    public init?(argument: String) {
        let text = argument.trimmingWhitespaceAndNewlines().lowercased()
        let units: [(String, Int)] = [("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1000), ("mb", 1_000_000),
                                      ("gb", 1_000_000_000), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1)]
        var number = Substring(text)
        var factor = 1
        for (suffix, value) in units where text.hasSuffix(suffix) {
            number = number.dropLast(suffix.count)
            factor = value
            break
        }
        guard let count = Int(String(number).trimmingWhitespaceAndNewlines()), count > 0 else { return nil }
        let (total, overflow) = count.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        bytes = total
    }

    public static var expectation: String { "a size like 512KiB, 2MiB or a number of bytes" }

    public var argumentText: String {
        for (suffix, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes % size == 0 {
            return "\(bytes / size)\(suffix)"
        }
        return "\(bytes)"
    }
}

/// An instant on the command line, the one time syntax of every time option: RFC 3339 (`2026-04-21T18:13:12Z`,
/// fractions and offsets allowed) or whole Unix seconds (`1763796900`). Values before 2000 or after 2200 are refused:
/// they are nearly always a unit mistake (milliseconds or nanoseconds given as seconds).
public struct Instant: ArgumentValue, Equatable, Comparable, Sendable {
    public let seconds: Int64
    /// 0 … 999,999,999.
    public let nanoseconds: Int64

    public static let earliest = Instant(uncheckedSeconds: 946_684_800)   // 2000-01-01T00:00:00Z
    public static let latest = Instant(uncheckedSeconds: 7_258_118_400)   // 2200-01-01T00:00:00Z

    init(uncheckedSeconds seconds: Int64, nanoseconds: Int64 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public init?(argument: String) {
        guard case .success(let instant) = Self.parse(argument) else { return nil }
        self = instant
    }

    public static var expectation: String {
        "a time as RFC 3339 (2026-04-21T18:13:12Z) or Unix seconds (1776795192), between 2000 and 2200"
    }
    public static var isData: Bool { true }

    public static func problem(with text: String) -> String? {
        if case .failure(let problem) = parse(text) { return problem.message }
        return nil
    }

    struct Problem: Error { let message: String }

    static func parse(_ raw: String) -> Result<Instant, Problem> {
        let text = raw.trimmingWhitespaceAndNewlines()
        let instant: Instant
        if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let seconds = Int64(text) else {
                return .failure(Problem(message: "'\(text)' is too large for Unix seconds"))
            }
            instant = Instant(uncheckedSeconds: seconds)
            guard instant >= earliest, instant < latest else {
                var message = "\(text) Unix seconds is \(RFC3339.format(.init(seconds: seconds))), outside 2000 … 2200"
                if text.count >= 13 { message += " (is it in milliseconds or nanoseconds? give whole seconds)" }
                return .failure(Problem(message: message))
            }
            return .success(instant)
        }
        guard let parsed = RFC3339.parse(text) else {
            return .failure(Problem(message: "'\(text)' is not a time: expected \(expectation)"))
        }
        instant = Instant(uncheckedSeconds: parsed.seconds, nanoseconds: parsed.nanoseconds)
        guard instant >= earliest, instant < latest else {
            return .failure(Problem(message: "\(text) is outside 2000 … 2200"))
        }
        return .success(instant)
    }

    /// Nanoseconds since the Unix epoch (the IC's time unit); always positive in the accepted range.
    public var unixNanoseconds: UInt64 { UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds) }

    public var rfc3339: String { RFC3339.format(.init(seconds: seconds, nanoseconds: nanoseconds), fractionDigits: nanoseconds == 0 ? 0 : 9) }
    public var argumentText: String { rfc3339 }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// A file to read: a path, or `-` for stdin. `@path` is accepted too (the `@FILE` habit from data options).
/// Read it through `Invocation.read(_:label:)`, which applies the terminal and size rules once.
public enum InputFile: ArgumentValue, Equatable, Sendable {
    case standardInput
    case path(String)

    public init?(argument: String) {
        if argument == "-" { self = .standardInput; return }
        guard !argument.isEmpty else { return nil }
        self = .path(argument)
    }

    public static var expectation: String { "a file path, or - for stdin" }
    public var argumentText: String {
        switch self {
        case .standardInput: "-"
        case .path(let path): path
        }
    }
    /// The name used in messages: the path, or `stdin`.
    public var displayName: String { self == .standardInput ? "stdin" : argumentText }
}

/// A file to write: a path, or `-` for stdout. Written through `Invocation.write(_:to:label:mode:)`: atomically,
/// with the mode given before any byte lands, and `-` meaning stdout everywhere.
public enum OutputFile: ArgumentValue, Equatable, Sendable {
    case standardOutput
    case path(String)

    public init?(argument: String) {
        if argument == "-" { self = .standardOutput; return }
        guard !argument.isEmpty else { return nil }
        self = .path(argument)
    }

    public static var expectation: String { "a file path, or - for stdout" }
    public var argumentText: String {
        switch self {
        case .standardOutput: "-"
        case .path(let path): path
        }
    }
    public var displayName: String { self == .standardOutput ? "stdout" : argumentText }
}

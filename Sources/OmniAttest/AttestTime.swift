import FoundationEssentials
import OmniCodec

/// Times in Unix seconds, read from RFC 3339 text (what the vectors, Apple's receipts and `--at` use) and written as
/// `YYYY-MM-DDTHH:MM:SSZ`. Computed from calendar fields: no locale, time zone database or Foundation formatter.
public enum AttestTime {
    /// The current time, whole seconds.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }

    /// The instants RFC 3339 can write: 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
    static let representable: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// Parses RFC 3339 (`2026-04-21T18:13:12Z`, fractional seconds dropped, `Z` or `±HH:MM`) or a plain number of
    /// Unix seconds within the years 1 to 9999. Nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if let seconds = Int64(trimmed) { return representable.contains(seconds) ? seconds : nil }
        return RFC3339.parse(trimmed)?.seconds
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC.
    public static func format(_ seconds: Int64) -> String {
        RFC3339.format(RFC3339.Instant(seconds: seconds))
    }
}

import FoundationEssentials
import OmniCodec

/// Times in Unix seconds, written as `YYYY-MM-DDTHH:MM:SSZ` (verdicts, receipts, the store). Reading a time from the
/// command line is the CLI's job (its one `Instant` type); receipts' RFC 3339 fields are read with OmniCodec's RFC3339.
public enum AttestTime {
    /// The current time, whole seconds.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC.
    public static func format(_ seconds: Int64) -> String {
        RFC3339.format(RFC3339.Instant(seconds: seconds))
    }
}

import FoundationEssentials
import OmniCodec
import OmniCandid

/// `ingress_expiry` as the reference agents compute it: now + 3 minutes, rounded down to a whole minute (so that
/// repeated identical requests share a request id and the boundary nodes can cache them), in the replica's clock.
public enum IngressExpiry {
    public static let nanosecondsPerSecond: UInt64 = 1_000_000_000
    /// The IC accepts expiries up to about 5 minutes ahead; agent-rs and agent-js use 3.
    public static let defaultLifetime: UInt64 = 180 * nanosecondsPerSecond
    public static let minute: UInt64 = 60 * nanosecondsPerSecond
    /// The latest expiry the IC accepts, after its current time: 5 minutes plus 30 s of permitted drift.
    public static let maxAcceptedLifetime: UInt64 = 5 * minute + 30 * nanosecondsPerSecond

    /// The expiry for a request made at local time `now` (ns since the epoch).
    ///
    /// - clockSkew: the replica's clock minus ours in nanoseconds (from a certificate's `/time` or an expiry
    ///   error, see `ClockSkew`); it moves the expiry into the replica's time frame.
    /// - lifetime: how long the request stays valid; when above 90 s the result is rounded down to the minute.
    public static func expiry(now: UInt64, clockSkew: Int64 = 0, lifetime: UInt64 = defaultLifetime) -> UInt64 {
        let replicaNow = ClockSkew.apply(clockSkew, to: now)
        let (sum, overflow) = replicaNow.addingReportingOverflow(lifetime)
        let expiry = overflow ? UInt64.max : sum
        guard lifetime > 90 * nanosecondsPerSecond else { return expiry }
        return expiry - expiry % minute
    }

    /// The local clock in nanoseconds since the Unix epoch.
    public static func currentTime() -> UInt64 {
        let seconds = Date().timeIntervalSince1970
        return seconds <= 0 ? 0 : UInt64(seconds * 1e9)
    }
}

/// The difference between the replica's clock and ours, learnt from certified time or (unauthenticated, so only
/// believed within the time tolerance) from the replica's "ingress_expiry not within expected range" error.
public enum ClockSkew {
    /// The skew (replica − local, ns) given a replica time observed at local time `localNow`, clamped to Int64.
    public static func skew(replicaTime: UInt64, localNow: UInt64) -> Int64 {
        if replicaTime >= localNow {
            let difference = replicaTime - localNow
            return difference > UInt64(Int64.max) ? Int64.max : Int64(difference)
        }
        let difference = localNow - replicaTime
        return difference > UInt64(Int64.max) ? Int64.min : -Int64(difference)
    }

    /// `time` moved by `skew`, saturating at 0 and UInt64.max.
    public static func apply(_ skew: Int64, to time: UInt64) -> UInt64 {
        if skew >= 0 {
            let (sum, overflow) = time.addingReportingOverflow(UInt64(skew))
            return overflow ? UInt64.max : sum
        }
        let magnitude = skew.magnitude
        return time > magnitude ? time - magnitude : 0
    }

    /// "local clock is 600 s behind the network" (or "ahead of"), for a skew of replica − local nanoseconds.
    public static func describeLocalClock(_ skew: Int64) -> String {
        let seconds = (skew.magnitude + nanosecondsHalfSecond) / IngressExpiry.nanosecondsPerSecond
        return "local clock is \(seconds) s \(skew >= 0 ? "behind" : "ahead of") the network"
    }

    private static let nanosecondsHalfSecond: UInt64 = IngressExpiry.nanosecondsPerSecond / 2

    /// The replica's current time read from its "Specified ingress_expiry not within expected range" message,
    /// whose "Minimum allowed expiry" is the replica's clock (`2025-05-01 23:55:18.005285297 UTC`); nil when the
    /// message does not contain one.
    public static func replicaTime(fromExpiryError message: String) -> UInt64? {
        let marker = "Minimum allowed expiry:"
        guard let range = message.firstRange(of: marker) else { return nil }
        let rest = message[range.upperBound...].drop(while: { $0 == " " })
        guard let end = rest.firstRange(of: " UTC") else { return nil }
        let stamp = String(rest[..<end.lowerBound].replacing(" ", with: "T")) + "Z"
        return try? ICTime.parse(stamp)
    }
}

/// Instants as the IC counts them: nanoseconds since the Unix epoch (UTC, no leap seconds).
public enum ICTime {
    /// Parses nanoseconds since the epoch (`1763796896688941908`) or RFC 3339 (`2025-11-22T07:34:56.688941908Z`,
    /// `…+01:00`, up to nine fractional digits).
    public static func parse(_ text: String) throws(ICError) -> UInt64 {
        let trimmed = text.trimmingWhitespace()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let value = UInt64(trimmed) else { throw ICError.malformed("time \(trimmed) does not fit in 64 bits of nanoseconds") }
            return value
        }
        guard let value = parseRFC3339(trimmed) else {
            throw ICError.malformed("time \"\(Principal.quotedSample(trimmed))\" is neither nanoseconds since the epoch nor RFC 3339")
        }
        return value
    }

    /// RFC 3339 in UTC with nine fractional digits, e.g. `2025-11-22T07:34:56.688941908Z`.
    public static func format(_ nanoseconds: UInt64) -> String {
        RFC3339.format(RFC3339.Instant(seconds: Int64(nanoseconds / IngressExpiry.nanosecondsPerSecond),
                                       nanoseconds: Int64(nanoseconds % IngressExpiry.nanosecondsPerSecond)),
                       fractionDigits: 9)
    }

    /// An RFC 3339 instant as nanoseconds since the epoch; nil before 1970 or beyond 64 bits.
    private static func parseRFC3339(_ text: String) -> UInt64? {
        guard let instant = RFC3339.parse(text), instant.seconds >= 0 else { return nil }
        let (scaled, overflow) = UInt64(instant.seconds).multipliedReportingOverflow(by: IngressExpiry.nanosecondsPerSecond)
        guard !overflow else { return nil }
        let (total, overflow2) = scaled.addingReportingOverflow(UInt64(instant.nanoseconds))
        return overflow2 ? nil : total
    }
}

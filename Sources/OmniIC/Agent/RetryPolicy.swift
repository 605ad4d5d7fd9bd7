import FoundationEssentials
import OmniCodec
import OmniTransport

/// When the agent sends a request again, and how long it waits first.
///
/// Only the same bytes are ever sent again: a query, a read_state, a status GET, or a call's signed envelope,
/// whose request id the IC deduplicates — so a retry never makes a second signature or a second call. Retried:
/// HTTP 429 and 502/503/504 (the interface spec: "the request might succeed if retried at a later time"), and
/// connections that broke or could not be made (`TransportError` `.closed`, `.connect`). Not retried: other
/// refusals (retrying "will likely have the same outcome"), timeouts (the request may still be running: a call
/// is followed by its status instead), cancellation.
///
/// The wait before retry n (1-based) is `initialDelay · 2^(n-1)`, at most `maxDelay`; a `Retry-After` header
/// (seconds or an HTTP date) replaces it, at most `maxRetryAfter`.
public struct RetryPolicy: Sendable, Equatable {
    public static let retriedStatuses: Set<Int> = [429, 502, 503, 504]
    public static let maxRetries = 10

    /// Retries after the first attempt (0 turns retrying off).
    public var retries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var maxRetryAfter: Duration

    public init(retries: Int = 2, initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4),
                maxRetryAfter: Duration = .seconds(30)) {
        self.retries = retries
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    func validated() throws(ICError) -> RetryPolicy {
        guard (0...RetryPolicy.maxRetries).contains(retries) else {
            throw ICError(.invalidArgument, "retries must be between 0 and \(RetryPolicy.maxRetries), got \(retries)")
        }
        guard initialDelay >= .zero, maxDelay >= initialDelay, maxRetryAfter >= .zero, maxRetryAfter <= .seconds(3600) else {
            throw ICError(.invalidArgument, "retry delays must be non-negative, the cap at least the first delay, Retry-After at most 1 hour")
        }
        return self
    }

    /// Whether a response's status is worth sending the same request again for.
    public static func isRetried(status: Int) -> Bool { retriedStatuses.contains(status) }

    /// Whether a failed exchange is worth repeating: the connection broke or could not be made.
    public static func isRetried(_ error: TransportError) -> Bool { error.kind == .closed || error.kind == .connect }

    /// The wait before retry `attempt` (1 for the first retry), `retryAfter` being the server's wish if any.
    public func delay(beforeRetry attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maxRetryAfter) }
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) {
            delay *= 2
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }

    /// A `Retry-After` value (RFC 9110 § 10.2.3): delay-seconds, or an HTTP date (IMF-fixdate) measured from `now`.
    /// Nil when it is neither.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingWhitespace()
        if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let seconds = Int64(text.prefix(9)) else { return nil }
            return .seconds(seconds)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64(min(seconds, 86_400) * 1000))
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT".
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

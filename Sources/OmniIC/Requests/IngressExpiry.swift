import Foundation
import OmniCandid

/// `ingress_expiry` as the reference agents compute it: now + 3 minutes, rounded down to a whole minute (so that
/// repeated identical requests share a request id and the boundary nodes can cache them), in the replica's clock.
public enum IngressExpiry {
    public static let nanosecondsPerSecond: UInt64 = 1_000_000_000
    /// The IC accepts expiries up to about 5 minutes ahead; agent-rs and agent-js use 3.
    public static let defaultLifetime: UInt64 = 180 * nanosecondsPerSecond
    public static let minute: UInt64 = 60 * nanosecondsPerSecond

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

/// The difference between the replica's clock and ours, learnt from certified time or from the replica's
/// "ingress_expiry not within expected range" error.
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

    /// The replica's current time read from its "Specified ingress_expiry not within expected range" message,
    /// whose "Minimum allowed expiry" is the replica's clock (`2025-05-01 23:55:18.005285297 UTC`); nil when the
    /// message does not contain one.
    public static func replicaTime(fromExpiryError message: String) -> UInt64? {
        let marker = "Minimum allowed expiry:"
        guard let range = message.range(of: marker) else { return nil }
        let rest = message[range.upperBound...].drop(while: { $0 == " " })
        guard let end = rest.range(of: " UTC") else { return nil }
        let stamp = rest[..<end.lowerBound].replacingOccurrences(of: " ", with: "T") + "Z"
        return try? ICTime.parse(stamp)
    }
}

/// Instants as the IC counts them: nanoseconds since the Unix epoch (UTC, no leap seconds).
public enum ICTime {
    /// Parses nanoseconds since the epoch (`1763796896688941908`) or RFC 3339 (`2025-11-22T07:34:56.688941908Z`,
    /// `…+01:00`, up to nine fractional digits).
    public static func parse(_ text: String) throws(ICError) -> UInt64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let value = UInt64(trimmed) else { throw ICError.malformed("time \(trimmed) does not fit in 64 bits of nanoseconds") }
            return value
        }
        guard let value = parseRFC3339(Array(trimmed.utf8)) else {
            throw ICError.malformed("time \"\(Principal.quotedSample(trimmed))\" is neither nanoseconds since the epoch nor RFC 3339")
        }
        return value
    }

    /// RFC 3339 in UTC with nine fractional digits, e.g. `2025-11-22T07:34:56.688941908Z`.
    public static func format(_ nanoseconds: UInt64) -> String {
        let seconds = Int64(nanoseconds / IngressExpiry.nanosecondsPerSecond)
        let fraction = nanoseconds % IngressExpiry.nanosecondsPerSecond
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(Int64(fraction), 9))Z"
    }

    private static func parseRFC3339(_ s: [UInt8]) -> UInt64? {
        func digits(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= s.count else { return nil }
            var value: Int64 = 0
            for index in start..<start + count {
                guard (0x30...0x39).contains(s[index]) else { return nil }
                value = value * 10 + Int64(s[index] - 0x30)
            }
            return value
        }
        guard s.count >= 20, let year = digits(0, 4), s[4] == UInt8(ascii: "-"), let month = digits(5, 2),
              s[7] == UInt8(ascii: "-"), let day = digits(8, 2), s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t"),
              let hour = digits(11, 2), s[13] == UInt8(ascii: ":"), let minute = digits(14, 2),
              s[16] == UInt8(ascii: ":"), let second = digits(17, 2),
              year >= 1970, (1...12).contains(month), (1...daysInMonth(year, month)).contains(day), hour < 24,
              minute < 60, second < 60
        else { return nil }
        var index = 19
        var nanos: Int64 = 0
        if index < s.count, s[index] == UInt8(ascii: ".") {
            index += 1
            var count = 0
            while index < s.count, (0x30...0x39).contains(s[index]) {
                guard count < 9 else { return nil }
                nanos = nanos * 10 + Int64(s[index] - 0x30)
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        guard index < s.count else { return nil }
        var offsetSeconds: Int64 = 0
        if s[index] == UInt8(ascii: "Z") || s[index] == UInt8(ascii: "z") {
            index += 1
        } else if s[index] == UInt8(ascii: "+") || s[index] == UInt8(ascii: "-") {
            guard let offsetHours = digits(index + 1, 2), index + 3 < s.count, s[index + 3] == UInt8(ascii: ":"),
                  let offsetMinutes = digits(index + 4, 2), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (s[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        } else {
            return nil
        }
        guard index == s.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        guard seconds >= 0 else { return nil }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: IngressExpiry.nanosecondsPerSecond)
        guard !overflow else { return nil }
        let (total, overflow2) = scaled.addingReportingOverflow(UInt64(nanos))
        return overflow2 ? nil : total
    }

    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

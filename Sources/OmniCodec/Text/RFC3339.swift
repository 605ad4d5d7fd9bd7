/// Instants as RFC 3339 text (`2026-04-21T18:13:12Z`, `…T18:13:12.688941908+01:00`) ⇄ Unix time, computed from
/// calendar fields: no locale, time-zone database or Foundation formatter, so results never depend on the host.
public enum RFC3339 {
    /// An instant: whole seconds since 1970-01-01T00:00:00Z (negative before) plus 0…999,999,999 nanoseconds.
    public struct Instant: Equatable, Sendable {
        public let seconds: Int64
        public let nanoseconds: Int64

        public init(seconds: Int64, nanoseconds: Int64 = 0) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }
    }

    /// Parses a full RFC 3339 date-time: `T`, `t` or a space between date and time (RFC 3339 §5.6 allows it);
    /// optional fractional seconds, at most nine digits (finer precision would be silently lost, so it is refused);
    /// `Z`, `z` or `±HH:MM`. A leap second (`:60`) counts as `:59`. Nil for
    /// anything else, including impossible dates such as February 30.
    public static func parse(_ text: some StringProtocol) -> Instant? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in range {
                let digit = bytes[index] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74 || bytes[10] == 0x20,
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var nanoseconds: Int64 = 0
        if bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] &- 0x30 < 10 {
                guard digits < 9 else { return nil }
                nanoseconds = nanoseconds * 10 + Int64(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanoseconds *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case 0x5A, 0x7A:
            guard index + 1 == bytes.count else { return nil }
        case 0x2B, 0x2D:
            guard index + 6 == bytes.count, bytes[index + 3] == 0x3A,
                  let offsetHours = number((index + 1)..<(index + 3)),
                  let offsetMinutes = number((index + 4)..<(index + 6)), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offset = (offsetHours * 60 + offsetMinutes) * 60 * (bytes[index] == 0x2D ? -1 : 1)
        default:
            return nil
        }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        return Instant(seconds: days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset,
                       nanoseconds: nanoseconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` in UTC with `fractionDigits` (0…9) digits of the nanoseconds.
    public static func format(_ instant: Instant, fractionDigits: Int = 0) -> String {
        // Floor division without the `seconds - 86_399` that would overflow near Int64.min.
        let (quotient, remainder) = instant.seconds.quotientAndRemainder(dividingBy: 86_400)
        let days = remainder < 0 ? quotient - 1 : quotient
        let secondOfDay = remainder < 0 ? remainder + 86_400 : remainder
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        let digits = max(0, min(9, fractionDigits))
        if digits > 0 {
            var fraction = instant.nanoseconds
            for _ in digits..<9 { fraction /= 10 }
            text += "." + pad(fraction, digits)
        }
        return text + "Z"
    }
}

/// The proleptic Gregorian calendar as day counts (H. Hinnant's `days_from_civil` / `civil_from_days`).
public enum CivilCalendar {
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01.
    public static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

import Foundation
import Testing
import OmniCodec
import OmniTestSupport

@Suite struct RFC3339Tests {
    @Test func parsesTheForms() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == .init(seconds: 0))
        #expect(RFC3339.parse("2025-11-22T07:34:56.688941908Z") == .init(seconds: 1_763_796_896, nanoseconds: 688_941_908))
        #expect(RFC3339.parse("2025-11-22t08:34:56.5+01:00") == .init(seconds: 1_763_796_896, nanoseconds: 500_000_000))
        #expect(RFC3339.parse("2025-11-22 07:34:56.123456789z") == .init(seconds: 1_763_796_896, nanoseconds: 123_456_789))
        #expect(RFC3339.parse("1969-12-31T23:59:59Z") == .init(seconds: -1))
        #expect(RFC3339.parse("2016-12-31T23:59:60Z") == .init(seconds: 1_483_228_799), "leap second counts as :59")
    }

    @Test(arguments: ["2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T00:00:00",
                      "2025-01-01T00:00:00.Z", "2025-01-01T00:00:00+0100", "2025-1-01T00:00:00Z", "2025-01-01T00:00:00.1234567891Z",
                      "garbage", ""])
    func refusesMalformed(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func formatsTheExtremesWithoutTrapping() {
        #expect(!RFC3339.format(.init(seconds: .min)).isEmpty)
        #expect(!RFC3339.format(.init(seconds: .max), fractionDigits: 9).isEmpty)
        #expect(RFC3339.format(.init(seconds: -1)) == "1969-12-31T23:59:59Z")
    }

    /// Formatting and parsing are inverse over random instants across four centuries (including before 1970).
    @Test func roundTripsRandomInstants() {
        var random = SeededGenerator()
        for _ in 0..<5_000 {
            let instant = RFC3339.Instant(seconds: Int64.random(in: -6_000_000_000...9_000_000_000, using: &random),
                                          nanoseconds: Int64.random(in: 0..<1_000_000_000, using: &random))
            let text = RFC3339.format(instant, fractionDigits: 9)
            #expect(RFC3339.parse(text) == instant, "seed \(random.seed): \(text)")
        }
    }

    /// Cross-check with Foundation's calendar for the formatted date fields.
    @Test func agreesWithFoundation() {
        var random = SeededGenerator()
        let formatter = ISO8601DateFormatter()
        for _ in 0..<500 {
            let seconds = Int64.random(in: 0...4_000_000_000, using: &random)
            let ours = RFC3339.format(.init(seconds: seconds))
            #expect(ours == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "seed \(random.seed)")
        }
    }
}

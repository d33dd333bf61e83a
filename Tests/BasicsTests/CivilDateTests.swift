import Foundation
import Basics
import Testing

/// The one civil-date computation (HTTP headers and pages) agrees with Foundation's Gregorian
/// calendar in UTC from 1600 to 9999, before and after the epoch, across leap days and century rules.
@Suite struct CivilDateTests {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static let moments: [Int] = {
        var moments = [0, -1, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, -2_208_988_800, 253_402_300_799]
        var generator = SystemRandomNumberGenerator()
        // From 1600: Foundation's Gregorian calendar is Julian before October 1582, ours proleptic.
        for _ in 0..<500 { moments.append(Int.random(in: -11_676_096_000...253_402_300_799, using: &generator)) }
        return moments
    }()

    @Test func agreesWithFoundationsCalendar() {
        for seconds in Self.moments {
            let fields = Self.calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second, .weekday], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            let date = CivilDate(secondsSinceEpoch: seconds)
            let expected = [fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second, fields.weekday.map { $0 - 1 }]
            #expect([date.year, date.month, date.day, date.hour, date.minute, date.second, date.weekday] == expected, "at \(seconds)")
            #expect(CivilDate.days(fromYear: date.year, month: date.month, day: date.day) * 86_400 + date.hour * 3600
                + date.minute * 60 + date.second == seconds)
        }
    }
}

/// A moment in UTC as calendar fields, by plain arithmetic on the Unix time (proleptic
/// Gregorian calendar): the one place dates are split for HTTP headers and for pages. Foundation's
/// `Calendar` costs microseconds per date, and a page shows several.
package struct CivilDate: Sendable, Equatable {
    package let year, month, day, hour, minute, second: Int
    /// 0 for Sunday … 6 for Saturday.
    package let weekday: Int

    /// The fields of `seconds` since 1970-01-01 00:00:00 UTC (negative before it).
    package init(secondsSinceEpoch seconds: Int) {
        let (days, secondOfDay) = Self.floorDivision(seconds, 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
        second = secondOfDay % 60
        weekday = Self.floorDivision(days + 4, 7).remainder  // 1970-01-01 was a Thursday
    }

    /// Days since 1970-01-01 to year, month, day: Howard Hinnant's `civil_from_days` over
    /// 400-year eras of 146,097 days, with years starting on 1 March so that the leap day falls
    /// at the end ("chrono-Compatible Low-Level Date Algorithms").
    package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a date: Howard Hinnant's `days_from_civil`.
    package static func days(fromYear year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivision(y, 400).quotient
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Division rounding towards negative infinity, with the matching non-negative remainder.
    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }

    /// Month abbreviations as HTTP dates and pages write them.
    package static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `value` with a leading zero below 10.
    package static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

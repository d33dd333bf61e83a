package import Foundation

/// How pages write dates: `22 Nov 2026, 07:32 UTC` for people, ISO 8601 for `<time datetime>`.
///
/// Plain arithmetic on the Unix time (proleptic Gregorian calendar, UTC): Foundation's `Calendar`
/// cost several microseconds per date, and a page shows four per quote.
package enum DateText {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func readable(_ date: Date) -> String {
        let p = Parts(date)
        return "\(p.day) \(months[p.month - 1]) \(p.year), \(pad(p.hour)):\(pad(p.minute)) UTC"
    }

    package static func machine(_ date: Date) -> String {
        let p = Parts(date)
        return "\(p.year)-\(pad(p.month))-\(pad(p.day))T\(pad(p.hour)):\(pad(p.minute)):\(pad(p.second))Z"
    }

    /// Calendar fields of a date in UTC.
    private struct Parts {
        let year, month, day, hour, minute, second: Int

        init(_ date: Date) {
            let seconds = Int(date.timeIntervalSince1970.rounded(.down))
            let (days, secondOfDay) = Self.floorDivision(seconds, 86_400)
            hour = secondOfDay / 3600
            minute = secondOfDay % 3600 / 60
            second = secondOfDay % 60
            // Days since 1970-01-01 to year, month, day: the civil-from-days algorithm over
            // 400-year eras of 146,097 days, with years starting on 1 March so that the leap day
            // falls at the end (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms").
            let shifted = days + 719_468
            let era = Self.floorDivision(shifted, 146_097).quotient
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        }

        private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
            let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
            return (quotient, value - quotient * divisor)
        }
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

package import Foundation

/// How pages write dates: `22 Nov 2026, 07:32 UTC` for people, ISO 8601 for `<time datetime>`.
///
/// Plain arithmetic on the Unix time (proleptic Gregorian calendar, UTC): Foundation's `Calendar`
/// cost several microseconds per date, and a page shows four per quote.
package enum DateText {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func readable(_ date: Date) -> String {
        let p = Parts(date)
        var text = Text()
        text.digits(p.day, width: 1)
        text.append(" " + months[p.month - 1] + " ")
        text.digits(p.year, width: 1)
        text.append(", ")
        text.digits(p.hour, width: 2)
        text.append(":")
        text.digits(p.minute, width: 2)
        text.append(" UTC")
        return text.string
    }

    package static func machine(_ date: Date) -> String {
        let p = Parts(date)
        var text = Text()
        text.digits(p.year, width: 1)
        text.append("-")
        text.digits(p.month, width: 2)
        text.append("-")
        text.digits(p.day, width: 2)
        text.append("T")
        text.digits(p.hour, width: 2)
        text.append(":")
        text.digits(p.minute, width: 2)
        text.append(":")
        text.digits(p.second, width: 2)
        text.append("Z")
        return text.string
    }

    /// UTF-8 bytes written in place: one buffer per date instead of a string per field (a list
    /// page writes 80 dates per request; interpolation with padded fields was ~17% of its CPU).
    private struct Text {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(24) }

        mutating func append(_ literal: String) { bytes.append(contentsOf: literal.utf8) }

        /// `value` in decimal, zero-padded to at least `width` digits (a negative year keeps its sign).
        mutating func digits(_ value: Int, width: Int) {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            let magnitude = value.magnitude
            var power: UInt = 1
            var count = 1
            while magnitude / power >= 10 {
                power *= 10
                count += 1
            }
            if count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
            while power > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(magnitude / power % 10))
                power /= 10
            }
        }

        var string: String { String(decoding: bytes, as: UTF8.self) }
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
}

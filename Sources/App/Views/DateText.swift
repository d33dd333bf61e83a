import Basics
package import Foundation

/// How pages write dates: `22 Nov 2026, 07:32 UTC` for people, ISO 8601 for `<time datetime>`,
/// from ``CivilDate``'s arithmetic (Foundation's `Calendar` costs microseconds a date).
package enum DateText {
    package static func readable(_ date: Date) -> String {
        let p = fields(date)
        var text = Text()
        text.digits(p.day, width: 1)
        text.append(" " + CivilDate.monthNames[p.month - 1] + " ")
        text.digits(p.year, width: 1)
        text.append(", ")
        text.digits(p.hour, width: 2)
        text.append(":")
        text.digits(p.minute, width: 2)
        text.append(" UTC")
        return text.string
    }

    package static func machine(_ date: Date) -> String {
        let p = fields(date)
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

    private static func fields(_ date: Date) -> CivilDate {
        CivilDate(secondsSinceEpoch: Int(date.timeIntervalSince1970.rounded(.down)))
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
}

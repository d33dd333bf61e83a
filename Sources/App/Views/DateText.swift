package import Foundation
import HTTPServer

/// How pages write dates: `22 Nov 2026, 07:32 UTC` for people, ISO 8601 for `<time datetime>`,
/// from ``CivilDate``'s arithmetic (Foundation's `Calendar` costs microseconds a date).
package enum DateText {
    package static func readable(_ date: Date) -> String {
        let p = fields(date)
        let pad = CivilDate.twoDigits
        return "\(p.day) \(CivilDate.monthNames[p.month - 1]) \(p.year), \(pad(p.hour)):\(pad(p.minute)) UTC"
    }

    package static func machine(_ date: Date) -> String {
        let p = fields(date)
        let pad = CivilDate.twoDigits
        return "\(p.year)-\(pad(p.month))-\(pad(p.day))T\(pad(p.hour)):\(pad(p.minute)):\(pad(p.second))Z"
    }

    private static func fields(_ date: Date) -> CivilDate {
        CivilDate(secondsSinceEpoch: Int(date.timeIntervalSince1970.rounded(.down)))
    }
}

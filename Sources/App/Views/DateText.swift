package import Foundation

/// How pages write dates: `22 Nov 2026, 07:32 UTC` for people, ISO 8601 for `<time datetime>`.
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
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            year = c.year ?? 1970
            month = c.month ?? 1
            day = c.day ?? 1
            hour = c.hour ?? 0
            minute = c.minute ?? 0
            second = c.second ?? 0
        }
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

import Basics

/// The IMF-fixdate format of `Date`, `Last-Modified` and `If-Modified-Since`
/// (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, computed without C or Foundation.
package enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Formats seconds since the Unix epoch (UTC).
    package static func format(secondsSinceEpoch seconds: Int) -> String {
        let date = CivilDate(secondsSinceEpoch: seconds)
        let pad = CivilDate.twoDigits
        return "\(weekdays[date.weekday]), \(pad(date.day)) \(CivilDate.monthNames[date.month - 1]) \(date.year) "
            + "\(pad(date.hour)):\(pad(date.minute)):\(pad(date.second)) GMT"
    }

    /// Parses an IMF-fixdate; nil for anything else (the obsolete RFC 850 and asctime forms
    /// are not accepted, so a conditional request using them is simply unconditional).
    package static func parse(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2,
            let monthIndex = CivilDate.monthNames.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2]), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        return CivilDate.days(fromYear: year, month: monthIndex + 1, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }
}

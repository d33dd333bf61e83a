/// How pages say how long to wait before trying again: `a second`, `40 seconds`, `a minute`,
/// `10 minutes`, `2 hours` (rounded up, so a person who waits that long is let in).
package enum WaitText {
    package static func phrase(seconds: Int) -> String {
        switch seconds {
        case ...1: return "a second"
        case ..<60: return "\(seconds) seconds"
        case ..<3_600: return count((seconds + 59) / 60, "minute")
        default: return count((seconds + 3_599) / 3_600, "hour")
        }
    }

    private static func count(_ number: Int, _ unit: String) -> String {
        number == 1 ? (unit == "hour" ? "an hour" : "a \(unit)") : "\(number) \(unit)s"
    }
}

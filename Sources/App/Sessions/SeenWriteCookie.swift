package import HTTPServer

/// The `quotebook_seen` cookie: read-your-writes across instances sharing one journal.
///
/// Behind a load balancer, the page a save redirects to may be served by another instance that
/// has not applied the save yet. So on a shared journal, the answer to a state-changing POST
/// carries the journal sequence its instance had applied by then (the save's own, or a later
/// one), and an instance asked with this cookie first catches up to that sequence, for at most
/// ``catchUpTimeout``. With a journal only one process writes, it is neither set nor read.
/// The value is only a position in the log, nothing secret; it is never logged all the same.
package enum SeenWriteCookie {
    /// Long enough for an instance to read a few entries, short enough that a page still comes
    /// when the database is slow: then it is served as it is.
    package static let catchUpTimeout: Duration = .seconds(1)
    /// Kept a few minutes: long enough for the pages that follow a save.
    static let lifetime = 300
    /// At most 18 digits, so every value fits an `Int64`.
    static let maximumDigits = 18

    /// The sequence in the request's cookie (named as `names` says); nil when there is none or
    /// it is not 1 to ``maximumDigits`` ASCII digits.
    package static func sequence(in cookies: HTTPCookies, names: AppCookies) -> Int64? {
        guard let value = names.value(.seen, in: cookies), (1...maximumDigits).contains(value.utf8.count),
            value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int64(value)
    }

    /// The cookie telling other instances this visitor has seen the journal through `sequence`.
    static func setting(_ sequence: Int64, names: AppCookies) -> SetCookie {
        names.setting(.seen, to: String(sequence), maxAge: lifetime)
    }
}

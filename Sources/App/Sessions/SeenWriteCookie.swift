package import HTTPServer

/// The `quotebook_seen` cookie: read-your-writes across instances sharing one journal.
///
/// Behind a load balancer, the page a save redirects to may be served by another instance that
/// has not applied the save yet. So on a shared journal, the answer to a state-changing POST
/// carries the journal sequence its instance had applied by then (the save's own, or a later
/// one), and an instance asked with this cookie first catches up to that sequence, for at most
/// ``catchUpTimeout``. With a journal only one process writes, it is neither set nor read.
///
/// The value is signed, `SEQUENCE.CODE`, where CODE is the first 128 bits of HMAC-SHA256 of the
/// sequence's digits, base64url, under a key derived from the book's secret (the one CSRF tokens
/// are made with, kept in the shared database, so every instance of one book has it). Only
/// positions an instance of this book handed out are believed; anything else — a forged
/// `999999999999999999`, a value from before signing, another book's — is ignored as if absent:
/// no wait, no catch-up query, no lost page cache, no log line. Clamping a forged value to the
/// newest position the instance has heard of was the alternative, but it cannot tell a forgery
/// from a real save whose notification has not arrived yet — the very case the cookie is for —
/// so it would either wait for forgeries or break read-your-writes. A genuine value never lies
/// ahead of the journal, so the only wait it causes is this instance's own lag. Checking costs
/// one HMAC (four SHA-256 blocks), only for requests that carry the cookie.
///
/// The value is only a position in the log, nothing secret; it is never logged all the same.
package struct SeenWriteCookie: Sendable {
    /// Long enough for an instance to read a few entries, short enough that a page still comes
    /// when the database is slow: then it is served as it is.
    package static let catchUpTimeout: Duration = .seconds(1)
    /// Kept a few minutes: long enough for the pages that follow a save.
    static let lifetime = 300
    /// At most 18 digits, so every value fits an `Int64`.
    static let maximumDigits = 18

    private let signer: CookieSigner
    private let names: AppCookies

    /// The cookie of the book whose secret is `bookSecret`, named as `names` says.
    package init(bookSecret: [UInt8], names: AppCookies) {
        signer = CookieSigner(bookSecret: bookSecret, label: "quotebook_seen cookie key")
        self.names = names
    }

    /// The sequence in `cookies`' seen cookie; nil when there is none, or its value is not one
    /// this book signed: 1 to ``maximumDigits`` ASCII digits, a dot, and their code.
    package func sequence(in cookies: HTTPCookies) -> Int64? {
        guard let value = names.value(.seen, in: cookies) else { return nil }
        let parts = value.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, (1...Self.maximumDigits).contains(parts[0].count),
            parts[0].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            signer.verifies(parts[1], for: parts[0])
        else { return nil }
        return Int64(String(decoding: parts[0], as: UTF8.self))
    }

    /// The cookie's value for `sequence`: its digits and their code.
    package func value(for sequence: Int64) -> String {
        let digits = String(sequence)
        return digits + "." + signer.code(for: Array(digits.utf8))
    }

    /// The cookie telling other instances this visitor has seen the journal through `sequence`.
    func setting(_ sequence: Int64) -> SetCookie {
        names.setting(.seen, to: value(for: sequence), maxAge: Self.lifetime)
    }
}

package import Foundation

/// One plain-text mail as the app writes it, before it is formatted (``formatted()``).
///
/// A value that round-trips through `Codable` (JSON), so the app can keep queued mail in its
/// database and send it later, or again after a temporary failure, with the same Message-ID.
/// The addresses are checked ``MailAddress``es; every other field may hold any text, and
/// formatting guarantees none of it can add a header or a recipient.
package struct MailMessage: Sendable, Equatable, Codable {
    package var from: MailAddress
    /// The sender's display name (`Quotebook`), written as RFC 2047 encoded words when it is
    /// not plain ASCII.
    package var fromName: String?
    package var to: MailAddress
    /// Any text; control characters (CR and LF included) become spaces, runs of white space one.
    package var subject: String
    /// The body: any text, with lines broken by LF, CRLF or CR.
    package var text: String
    package var date: Date
    /// `random@domain`, without angle brackets (``newMessageID(domain:)``).
    package var messageID: String

    package init(
        from: MailAddress, fromName: String?, to: MailAddress, subject: String, text: String, date: Date, messageID: String
    ) {
        self.from = from
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.text = text
        self.date = date
        self.messageID = messageID
    }

    /// A fresh Message-ID (RFC 5322 §3.6.4): 128 random bits from the system's secure generator
    /// (`getrandom(2)` on Linux) in hexadecimal, `@`, `domain` (the sender's). Unique without any
    /// state, so a mail sent again after a crash keeps the ID it was queued with, and a new one
    /// never collides.
    package static func newMessageID(domain: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next(), generator.next()] as [UInt64]
        return words.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined() + "@" + domain
    }
}

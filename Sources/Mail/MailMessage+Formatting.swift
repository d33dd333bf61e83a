import Basics
import Foundation

extension MailMessage {
    /// The message as RFC 5322 + MIME (RFC 2045) bytes with CRLF line endings, ready for SMTP's
    /// DATA (before dot-stuffing): `From`, `To`, `Subject`, `Date`, `Message-ID`,
    /// `MIME-Version`, `Content-Type: text/plain; charset=utf-8` and
    /// `Content-Transfer-Encoding: quoted-printable`, a blank line, then the body in
    /// quoted-printable (``QuotedPrintable``). Every byte is 7-bit ASCII, so no relay needs
    /// 8BITMIME or SMTPUTF8.
    ///
    /// Only these headers, always, in this order: the subject and display name lose their
    /// control characters (so CR and LF can never start a header) and become RFC 2047 encoded
    /// words when they are not plain ASCII; headers are folded to at most 78 characters per
    /// line (RFC 5322 §2.1.1), except that an address or Message-ID too long for one line keeps
    /// a line of its own (at most 998, the hard limit, since an address is at most 254).
    package func formatted() -> [UInt8] {
        let headers = [
            MailHeader.folded(name: "From", tokens: fromTokens),
            MailHeader.folded(name: "To", tokens: [to.text]),
            MailHeader.folded(name: "Subject", tokens: MailHeader.unstructuredTokens(subject)),
            "Date: " + Self.dateText(date),
            MailHeader.folded(name: "Message-ID", tokens: ["<" + Self.sanitizedMessageID(messageID) + ">"]),
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        var bytes = Array((headers.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        bytes += QuotedPrintable.encode(text)
        return bytes
    }

    /// The display name's tokens and the address in angle brackets, or the bare address.
    private var fromTokens: [String] {
        let name = fromName.map(MailHeader.phraseTokens) ?? []
        return name.isEmpty ? [from.text] : name + ["<" + from.text + ">"]
    }

    /// RFC 5322 §3.3's `date-time` in UTC, `Sun, 29 Nov 2026 06:43:48 +0000` (whole seconds).
    static func dateText(_ date: Date) -> String {
        let civil = CivilDate(secondsSinceEpoch: Int(date.timeIntervalSince1970.rounded(.down)))
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][civil.weekday]
        let month = CivilDate.monthNames[civil.month - 1]
        let time = [civil.hour, civil.minute, civil.second].map(CivilDate.twoDigits).joined(separator: ":")
        return "\(weekday), \(CivilDate.twoDigits(civil.day)) \(month) \(civil.year) \(time) +0000"
    }

    /// The Message-ID with everything but RFC 5322 `atext`, `.` and `@` dropped: one that
    /// ``newMessageID(domain:)`` made is unchanged, and a bad stored one cannot break the header.
    static func sanitizedMessageID(_ id: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.@".utf8)
        let kept = id.utf8.filter { allowed.contains($0) }
        return kept.isEmpty ? "invalid@invalid" : String(decoding: kept, as: UTF8.self)
    }
}

import Foundation
import Mail

extension MailAddress {
    /// An address a test spells out; a typo in a test is a programmer error.
    static func fixture(_ text: String) -> MailAddress {
        guard let address = MailAddress(text) else { preconditionFailure("not a mail address: \(text)") }
        return address
    }
}

extension MailMessage {
    /// A message from Quotebook to someone, with whatever a test varies.
    static func fixture(
        fromName: String? = "Quotebook", to: String = "Someone@Example.org", subject: String = "Reset your password",
        text: String = "Hello.\n", messageID: String = "0123456789abcdef0123456789abcdef@quotes.example"
    ) -> MailMessage {
        MailMessage(
            from: .fixture("noreply@quotes.example"), fromName: fromName, to: .fixture(to), subject: subject, text: text,
            date: Date(timeIntervalSince1970: 1_795_934_628.75), messageID: messageID)
    }
}

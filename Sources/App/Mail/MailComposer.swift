package import Foundation
package import Mail
package import Store

/// Writes every mail the app sends: its words, its link, its headers. What a person typed (their
/// username) appears only in the body, which formatting encodes (``MailMessage/formatted()``),
/// never in a header.
package struct MailComposer: Sendable {
    package let from: MailAddress
    package let links: MailLinks
    static let senderName = "Quotebook"

    package init(from: MailAddress, links: MailLinks) {
        self.from = from
        self.links = links
    }

    /// The link that makes `to` the verified address of `username`'s account.
    package func verification(to: MailAddress, username: Username, token: String, at date: Date) -> MailMessage {
        message(
            to: to, subject: "Confirm your email address for Quotebook", at: date,
            text: """
                Hello \(username.rawValue),

                Someone, we hope you, asked to use this address for the Quotebook account \
                "\(username.rawValue)". To confirm it, open this link within 30 minutes:

                \(links.link(to: AccountsRoute.verifyForm(token: token)))

                If it was not you, ignore this mail: the address will not be used.
                """)
    }

    /// Tells the verified address `to` that another is on its way to replacing it.
    package func addressChanging(to: MailAddress, username: Username, at date: Date) -> MailMessage {
        message(
            to: to, subject: "Your Quotebook email address is being changed", at: date,
            text: """
                Hello \(username.rawValue),

                A new email address was just given for your Quotebook account "\(username.rawValue)". \
                Until it is confirmed, mail keeps coming to this one.

                If you did not ask for this, change your password at once:

                \(links.link(to: ProfilesRoute.passwordForm))
                """)
    }

    /// The link that sets a new password for `username`'s account.
    package func passwordReset(to: MailAddress, username: Username, token: String, at date: Date) -> MailMessage {
        message(
            to: to, subject: "Reset your Quotebook password", at: date,
            text: """
                Hello \(username.rawValue),

                Someone asked to reset the password of the Quotebook account "\(username.rawValue)". \
                To choose a new one, open this link within 30 minutes:

                \(links.link(to: AccountsRoute.resetForm(token: token)))

                If it was not you, ignore this mail: your password stays as it is.
                """)
    }

    /// Tells the verified address `to` that the password changed (`byReset`: through a mailed link).
    package func passwordChanged(to: MailAddress, username: Username, byReset: Bool, at date: Date) -> MailMessage {
        let how = byReset ? "was just reset through a link mailed to this address" : "was just changed"
        return message(
            to: to, subject: "Your Quotebook password was changed", at: date,
            text: """
                Hello \(username.rawValue),

                The password of your Quotebook account "\(username.rawValue)" \(how), and every browser \
                signed in to it was signed out.

                If it was not you, ask for a new password at once:

                \(links.link(to: AccountsRoute.forgotForm))
                """)
    }

    private func message(to: MailAddress, subject: String, at date: Date, text: String) -> MailMessage {
        MailMessage(
            from: from, fromName: Self.senderName, to: to, subject: subject, text: text, date: date,
            messageID: MailMessage.newMessageID(domain: from.domain))
    }

    /// A mail as the outbox keeps it: the message, and when the link in it dies (a mail whose
    /// link is dead is not worth sending: it is given up).
    package struct Queued: Codable, Sendable, Equatable {
        package var message: MailMessage
        package var linkExpiresAt: Date?
    }

    /// `message` as the outbox keeps it.
    package static func encode(_ message: MailMessage, linkExpiresAt: Date? = nil) -> String {
        // Encoding a struct of strings and dates cannot fail.
        (try? String(decoding: JSONEncoder().encode(Queued(message: message, linkExpiresAt: linkExpiresAt)), as: UTF8.self)) ?? ""
    }

    /// A mail the outbox kept; nil when it does not decode (then it is given up and logged).
    package static func decode(_ text: String) -> Queued? {
        try? JSONDecoder().decode(Queued.self, from: Data(text.utf8))
    }
}

package import Logging

/// Where mail goes without `--smtp`: into the log, as a development server does (Django's
/// console e-mail backend), so a developer can read each mail and follow a link in it without a
/// relay. Nothing leaves the machine, and delivery never fails.
///
/// One info line per mail: the sender, the recipient and the subject, then the whole body
/// (its line breaks kept) after a blank line.
package struct LogMailTransport: MailTransport {
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    package func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        let sender = message.fromName.map { "\($0) <\(message.from.text)>" } ?? message.from.text
        logger.info(
            """
            mail not sent (no --smtp): From: \(sender), To: \(message.to.text), Subject: \(message.subject)

            \(message.text)
            """)
    }
}

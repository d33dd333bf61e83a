/// Something that delivers mail: the SMTP client (``SMTPTransport``), or the log in development
/// (``LogMailTransport``). The outbox holds one and never knows which.
package protocol MailTransport: Sendable {
    /// Hands `message` on; returning means the next hop accepted it (for SMTP: the relay
    /// answered 250 to the end of the data).
    ///
    /// - Throws: ``MailDeliveryError``, saying whether trying again later may help.
    func deliver(_ message: MailMessage) async throws(MailDeliveryError)
}

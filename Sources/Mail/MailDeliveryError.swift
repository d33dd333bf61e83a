/// Why a delivery failed, as the outbox needs it: try again later, or give up.
///
/// The message is for the log: the step and the relay's reply or the system's error, never a
/// password or the message itself.
package enum MailDeliveryError: Error, Sendable, Equatable {
    /// Worth retrying: the relay could not be reached or resolved, a step timed out, the
    /// connection closed early, the relay answered 4xx (RFC 5321 §4.2.1), TLS failed (handshake
    /// or certificate), the relay offers no STARTTLS although credentials are set (the password
    /// is then never sent), or it offers no AUTH after STARTTLS.
    case temporary(String)
    /// Not worth retrying: a 5xx reply to MAIL FROM, RCPT TO, DATA, the end of the data, or AUTH
    /// (a wrong password, a refused recipient).
    case permanent(String)

    /// The message, whichever the case.
    package var message: String {
        switch self {
        case .temporary(let message), .permanent(let message): message
        }
    }
}

extension MailDeliveryError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .temporary(let message): "temporary mail delivery failure: \(message)"
        case .permanent(let message): "permanent mail delivery failure: \(message)"
        }
    }
}

import Foundation

/// The SMTP client (RFC 5321) that hands mail to one relay, with STARTTLS (RFC 3207) through
/// Debian's OpenSSL and AUTH PLAIN or LOGIN (RFC 4954); ``SMTPSession`` holds the conversation.
///
/// Threading: every delivery blocks (`getaddrinfo`, `poll`) on a thread of its own, started for
/// it, never on Swift's cooperative pool; the awaiting task is suspended on a continuation
/// meanwhile. So ``deliver(_:)`` is safe to call concurrently, each call with its own
/// connection. The only state deliveries share is the immutable TLS settings
/// (``TLSClientContext``). Cancelling the awaiting task does not stop a delivery: the
/// ``SMTPTimeouts`` bound it instead.
package struct SMTPTransport: MailTransport {
    package let relay: SMTPRelay
    /// The name this host greets the relay with (EHLO), e.g. the site's host name.
    package let heloName: String
    package let timeouts: SMTPTimeouts
    private let context: TLSClientContext

    /// A transport to `relay` that also trusts the CAs in `extraCAFile` (PEM) besides the
    /// system's.
    ///
    /// - Throws: ``SMTPTransportSetupError`` when the CA file cannot be loaded or `heloName` is
    ///   not a host name or bracketed address literal, so the server refuses to start with a bad
    ///   `--smtp-ca` rather than fail every mail later.
    package init(
        relay: SMTPRelay, extraCAFile: String? = nil, heloName: String, timeouts: SMTPTimeouts = .standard
    ) throws(SMTPTransportSetupError) {
        guard Self.isHeloName(heloName) else { throw .invalidHeloName(heloName) }
        self.relay = relay
        self.heloName = heloName
        self.timeouts = timeouts
        context = try TLSClientContext(extraCAFile: extraCAFile)
    }

    package func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        try await deliver(formatted: message.formatted(), from: message.from, to: message.to)
    }

    /// Delivers bytes already formatted as a message (CRLF line endings), from `from` to `to`:
    /// what ``deliver(_:)`` does after ``MailMessage/formatted()``, and how tests put any bytes
    /// on the wire. They are dot-stuffed here.
    package func deliver(formatted data: [UInt8], from: MailAddress, to: MailAddress) async throws(MailDeliveryError) {
        let session = SMTPSession(relay: relay, heloName: heloName, timeouts: timeouts, context: context)
        let result: Result<Void, MailDeliveryError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(MailDeliveryError) {
                    try session.deliver(data, from: from, to: to)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "smtp"
            thread.start()
        }
        try result.get()
    }

    /// RFC 5321 §4.1.1.1: a domain, or an address literal in brackets.
    private static func isHeloName(_ name: String) -> Bool {
        if name.hasPrefix("[") && name.hasSuffix("]") && name.count > 2 {
            let inner = String(name.dropFirst().dropLast())
            return SocketCalls.isIPAddress(inner.hasPrefix("IPv6:") ? String(inner.dropFirst(5)) : inner)
        }
        return MailAddress.isDomain(Substring(name))
    }
}

/// The byte stream of one SMTP session, plain or (after ``startTLS(context:host:deadline:)``)
/// encrypted, with SMTP's reply reading (RFC 5321 §4.2) on top.
///
/// Owns the ``SMTPSocket`` and the ``TLSConnection``; ``close(deadline:)`` ends both, once.
/// Not Sendable: one delivery's thread uses it from start to end.
final class SMTPConnection {
    private let socket: SMTPSocket
    private var tls: TLSConnection?
    /// Bytes received and not yet read as reply lines.
    private var received: [UInt8] = []

    init(socket: SMTPSocket) {
        self.socket = socket
    }

    /// `host:port`, for error messages.
    var peer: String { socket.peer }

    /// Whether the session is encrypted.
    var isEncrypted: Bool { tls != nil }

    /// Sends `bytes` (a command line with its CRLF, or the message).
    func send(_ bytes: [UInt8], deadline: Deadline, step: String) throws(MailDeliveryError) {
        if let tls {
            try tls.send(bytes, deadline: deadline, step: step)
        } else {
            try socket.send(bytes, deadline: deadline, step: step)
        }
    }

    /// Reads one reply, all its lines.
    ///
    /// - Throws: ``MailDeliveryError/temporary(_:)`` when it does not come before `deadline`,
    ///   the connection closes, or it breaks the grammar (``SMTPReply/Parser``): a line over
    ///   ``SMTPReply/maximumLineLength`` bytes, more than ``SMTPReply/maximumLineCount`` lines.
    func readReply(deadline: Deadline, step: String) throws(MailDeliveryError) -> SMTPReply {
        var parser = SMTPReply.Parser()
        while true {
            let line = try readLine(deadline: deadline, step: step)
            switch parser.add(line) {
            case .needMore: continue
            case .reply(let reply): return reply
            case .invalid(let reason): throw .temporary("\(peer) sent a malformed reply \(step): \(reason)")
            }
        }
    }

    /// Switches to TLS after the relay's 220 to STARTTLS and checks its certificate.
    ///
    /// - Throws: ``MailDeliveryError/temporary(_:)`` when the relay sent anything after its 220
    ///   (it would be read as if it came over TLS: the STARTTLS command injection of
    ///   CVE-2011-0411, RFC 3207 §4.2), or the handshake fails.
    func startTLS(context: TLSClientContext, host: String, deadline: Deadline) throws(MailDeliveryError) {
        guard received.isEmpty else { throw .temporary("\(peer) sent data after its reply to STARTTLS, before TLS began") }
        let session = try TLSConnection(context: context, host: host, socket: socket)
        try session.handshake(deadline: deadline)
        tls = session
    }

    /// Ends TLS (when on) and closes the socket; later sends fail.
    func close(deadline: Deadline) {
        tls?.close(deadline: deadline)
        tls = nil
        socket.close()
    }

    /// One line without its CRLF (a bare LF is accepted too).
    private func readLine(deadline: Deadline, step: String) throws(MailDeliveryError) -> [UInt8] {
        var searched = 0
        while true {
            if let end = received[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                guard end <= SMTPReply.maximumLineLength else { break }
                var line = Array(received[..<end])
                received.removeFirst(end + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return line
            }
            searched = received.count
            guard received.count <= SMTPReply.maximumLineLength else { break }
            if let tls {
                received += try tls.receive(deadline: deadline, step: step)
            } else {
                received += try socket.receive(limit: 4096, deadline: deadline, step: step)
            }
        }
        throw .temporary("\(peer) sent a reply line over \(SMTPReply.maximumLineLength) bytes \(step)")
    }
}

@available(*, unavailable, message: "An SMTP connection belongs to one delivery's thread.")
extension SMTPConnection: Sendable {}

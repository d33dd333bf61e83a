import Foundation

/// One delivery's conversation with the relay (RFC 5321 §3–4), blocking, on the thread
/// ``SMTPTransport`` starts for it: connect, greeting, EHLO, STARTTLS, EHLO again, AUTH, MAIL
/// FROM, RCPT TO, DATA, the message, QUIT. One command at a time (no PIPELINING, RFC 2920).
///
/// TLS: STARTTLS whenever the relay offers it, and always required with credentials: without
/// it the delivery fails (temporarily) before any AUTH command, so a password never crosses the
/// network in clear, whatever a relay (or someone between it and us stripping the STARTTLS
/// line) says. Once STARTTLS is offered, the certificate must check out (trusted CA, right
/// host) even without credentials: a failed handshake fails the delivery rather than fall back
/// to plain text, which anyone in the path could otherwise force.
struct SMTPSession {
    let relay: SMTPRelay
    let heloName: String
    let timeouts: SMTPTimeouts
    let context: TLSClientContext

    /// Delivers `data` (a formatted message, not yet dot-stuffed) from `from` to `to`.
    func deliver(_ data: [UInt8], from: MailAddress, to: MailAddress) throws(MailDeliveryError) {
        let socket = try SMTPSocket.connect(host: relay.host, port: relay.port, deadline: Deadline(after: timeouts.connect))
        let connection = SMTPConnection(socket: socket)
        defer { connection.close(deadline: Deadline(after: closingTimeout)) }
        try converse(on: connection, data: data, from: from, to: to)
    }

    private func converse(on connection: SMTPConnection, data: [UInt8], from: MailAddress, to: MailAddress) throws(MailDeliveryError) {
        let greeting = try connection.readReply(deadline: Deadline(after: timeouts.greeting), step: "waiting for the greeting")
        try require(greeting, [220], name: "the greeting", permanentOn5xx: false, on: connection)
        var extensions = try hello(on: connection)
        if extensions.offersStartTLS || relay.credentials != nil {
            guard extensions.offersStartTLS else {
                throw .temporary("\(connection.peer) offers no STARTTLS, and credentials are sent over TLS only (none were sent)")
            }
            try exchange("STARTTLS", name: "STARTTLS", expecting: [220], permanentOn5xx: false, on: connection)
            try connection.startTLS(context: context, host: relay.host, deadline: Deadline(after: timeouts.reply))
            extensions = try hello(on: connection)
        }
        if let credentials = relay.credentials {
            try authenticate(credentials, offered: extensions, on: connection)
        }
        // A refused sender or refused credentials (below) are the operator's to fix (--mail-from,
        // --smtp): the mail waits for that, never given up. Only the recipient or the message
        // itself refused for good (5xx to RCPT, DATA or the data) gives a mail up.
        try exchange("MAIL FROM:<\(from.text)>", name: "MAIL FROM", expecting: [250], permanentOn5xx: false, on: connection)
        try exchange("RCPT TO:<\(to.text)>", name: "RCPT TO", expecting: [250, 251], on: connection)
        try exchange("DATA", name: "DATA", expecting: [354], on: connection)
        try connection.send(SMTPData.stuffed(data), deadline: Deadline(after: timeouts.data), step: "sending the message")
        let accepted = try connection.readReply(deadline: Deadline(after: timeouts.dataReply), step: "waiting for the reply to the message")
        try require(accepted, [250], name: "the message", on: connection)
        // Delivered. QUIT is a courtesy (§4.1.1.10): its failure changes nothing.
        let quitDeadline = Deadline(after: closingTimeout)
        _ = try? connection.send(Array("QUIT\r\n".utf8), deadline: quitDeadline, step: "sending QUIT")
        _ = try? connection.readReply(deadline: quitDeadline, step: "waiting for the reply to QUIT")
    }

    /// EHLO, or HELO when the relay refuses EHLO with 5xx (RFC 5321 §4.1.4) and nothing needs
    /// an extension: no credentials, not yet on TLS.
    private func hello(on connection: SMTPConnection) throws(MailDeliveryError) -> SMTPExtensions {
        let reply = try command("EHLO \(heloName)", name: "EHLO", on: connection)
        if reply.isSuccess { return SMTPExtensions(ehloReply: reply) }
        guard reply.isPermanent, relay.credentials == nil, !connection.isEncrypted else {
            throw .temporary("\(connection.peer) answered EHLO with \(reply.summary)")
        }
        try exchange("HELO \(heloName)", name: "HELO", expecting: [250], permanentOn5xx: false, on: connection)
        return .none
    }

    /// AUTH PLAIN (RFC 4616) when offered, else AUTH LOGIN; only ever on an encrypted session.
    private func authenticate(
        _ credentials: SMTPCredentials, offered extensions: SMTPExtensions, on connection: SMTPConnection
    ) throws(MailDeliveryError) {
        // Checked again here, right before any AUTH is written, whatever the caller did.
        guard connection.isEncrypted else { throw .temporary("refusing to send credentials to \(connection.peer) without TLS") }
        if extensions.authMechanisms.contains("PLAIN") {
            let token = Self.base64([0] + Array(credentials.user.utf8) + [0] + Array(credentials.password.utf8))
            try exchange("AUTH PLAIN \(token)", name: "AUTH PLAIN", expecting: [235], permanentOn5xx: false, on: connection)
        } else if extensions.authMechanisms.contains("LOGIN") {
            let user = Self.base64(Array(credentials.user.utf8))
            let password = Self.base64(Array(credentials.password.utf8))
            try exchange("AUTH LOGIN", name: "AUTH LOGIN", expecting: [334], permanentOn5xx: false, on: connection)
            try exchange(user, name: "AUTH LOGIN's user name", expecting: [334], permanentOn5xx: false, on: connection)
            try exchange(password, name: "AUTH LOGIN's password", expecting: [235], permanentOn5xx: false, on: connection)
        } else {
            throw .temporary("\(connection.peer) offers no AUTH PLAIN or LOGIN (offered: \(extensions.authMechanisms.sorted()))")
        }
    }

    /// Sends `line` and reads its reply, within ``SMTPTimeouts/reply``. Errors name the command
    /// by `name`, never by `line` (which may carry a credential).
    private func command(_ line: String, name: String, on connection: SMTPConnection) throws(MailDeliveryError) -> SMTPReply {
        let deadline = Deadline(after: timeouts.reply)
        try connection.send(Array((line + "\r\n").utf8), deadline: deadline, step: "sending \(name)")
        return try connection.readReply(deadline: deadline, step: "waiting for the reply to \(name)")
    }

    /// ``command(_:name:on:)``, failing unless the reply's code is one of `expecting`.
    @discardableResult
    private func exchange(
        _ line: String, name: String, expecting accepted: Set<Int>, permanentOn5xx: Bool = true, on connection: SMTPConnection
    ) throws(MailDeliveryError) -> SMTPReply {
        let reply = try command(line, name: name, on: connection)
        try require(reply, accepted, name: name, permanentOn5xx: permanentOn5xx, on: connection)
        return reply
    }

    /// Fails unless `reply`'s code is one of `accepted`: permanently for 5xx when
    /// `permanentOn5xx` (RFC 5321 §4.2.1: the same command will fail again), else temporarily.
    private func require(
        _ reply: SMTPReply, _ accepted: Set<Int>, name: String, permanentOn5xx: Bool = true, on connection: SMTPConnection
    ) throws(MailDeliveryError) {
        guard !accepted.contains(reply.code) else { return }
        let message = "\(connection.peer) answered \(name) with \(reply.summary)"
        throw permanentOn5xx && reply.isPermanent ? .permanent(message) : .temporary(message)
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// How long closing (QUIT, TLS's close_notify) may take once the mail is delivered.
    private var closingTimeout: Duration { min(timeouts.reply, .seconds(5)) }
}

import Foundation
import Mail
import Testing

/// The SMTP client against a real relay (aiosmtpd, `Tests/Support/smtp_server.py`) with STARTTLS,
/// AUTH and a certificate from its own CA. Runs only when `QUOTEBOOK_TEST_SMTP` holds the line
/// `.ci/smtp.sh start DIR` prints and `QUOTEBOOK_TEST_SMTP_MAILDIR` is that DIR.
@Suite(.enabled(if: RealSMTPServer.current != nil, "needs QUOTEBOOK_TEST_SMTP (.ci/smtp.sh start prints one)"), .timeLimit(.minutes(1)))
struct RealSMTPServerTests {
    static let timeouts = SMTPTimeouts(
        connect: .seconds(5), greeting: .seconds(10), reply: .seconds(10), data: .seconds(10), dataReply: .seconds(10))

    static func server() throws -> RealSMTPServer {
        try #require(RealSMTPServer.current)
    }

    /// A message with a subject and body that need encoding, and a Message-ID no other test uses.
    static func message() -> MailMessage {
        .fixture(
            to: "reader@localhost", subject: "Grüße from the real relay, with a subject long enough to fold over lines",
            text: ".a line starting with a dot\n..two dots\nFrom the start\nnon-ASCII: 日本語 👍🏽\nend without a line break",
            messageID: MailMessage.newMessageID(domain: "quotes.example"))
    }

    @Test func deliversOverStartTLSWithAuth() async throws {
        let server = try Self.server()
        let transport = try SMTPTransport(
            relay: server.relay, extraCAFile: server.caFile, heloName: "quotes.example", timeouts: Self.timeouts)
        let message = Self.message()
        try await transport.deliver(message)
        let stored = try #require(try server.storedMessage(withID: message.messageID), "the relay kept the message")
        let mail = try ParsedMail(Array(stored.contents))
        #expect(mail.decoded("From") == "Quotebook <noreply@quotes.example>")
        #expect(mail.value("To") == "reader@localhost")
        #expect(mail.decoded("Subject") == message.subject)
        #expect(mail.value("Message-ID") == "<\(message.messageID)>")
        #expect(mail.text == message.text)
        let entry = try #require(try server.indexEntry(forFile: stored.name))
        #expect(entry.mailFrom == "noreply@quotes.example")
        #expect(entry.rcptTos == ["reader@localhost"])
    }

    /// A refused password is the operator's to fix: the mail waits for that (temporary), rather
    /// than being given up while the relay is misconfigured.
    @Test func wrongPasswordIsTemporary() async throws {
        let server = try Self.server()
        var relay = server.relay
        relay.credentials?.password = "not-the-password"
        let transport = try SMTPTransport(relay: relay, extraCAFile: server.caFile, heloName: "quotes.example", timeouts: Self.timeouts)
        let message = Self.message()
        let error = await SMTPProtocolTests.failure(of: transport, delivering: message)
        guard case .temporary(let text) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(text.contains("535"), "\(text)")
        #expect(!text.contains("not-the-password"))
        #expect(try server.storedMessage(withID: message.messageID) == nil)
    }

    @Test func systemTrustStoreAloneRefusesTheRelaysCertificate() async throws {
        let server = try Self.server()
        let transport = try SMTPTransport(relay: server.relay, heloName: "quotes.example", timeouts: Self.timeouts)
        let message = Self.message()
        let error = await SMTPProtocolTests.failure(of: transport, delivering: message)
        guard case .temporary(let text) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(text.contains("certificate"), "\(text)")
        #expect(try server.storedMessage(withID: message.messageID) == nil)
    }

    @Test func checksTheNameWhenReachedByName() async throws {
        let server = try Self.server()
        var relay = server.relay
        relay.host = "localhost"  // in the certificate as a DNS name; checked with SSL_set1_host
        let transport = try SMTPTransport(relay: relay, extraCAFile: server.caFile, heloName: "quotes.example", timeouts: Self.timeouts)
        let message = Self.message()
        try await transport.deliver(message)
        #expect(try server.storedMessage(withID: message.messageID) != nil)
    }

    @Test func refusesACertificateForAnotherAddress() async throws {
        let server = try Self.server()
        var relay = server.relay
        // The same listener through IPv6's IPv4-mapped form: the certificate holds 127.0.0.1
        // (4 bytes), never ::ffff:127.0.0.1 (16), so the address check must fail.
        relay.host = "::ffff:127.0.0.1"
        let transport = try SMTPTransport(relay: relay, extraCAFile: server.caFile, heloName: "quotes.example", timeouts: Self.timeouts)
        let message = Self.message()
        let error = await SMTPProtocolTests.failure(of: transport, delivering: message)
        guard case .temporary(let text) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(text.contains("certificate") && text.contains("IP address mismatch"), "\(text)")
        #expect(try server.storedMessage(withID: message.messageID) == nil)
    }

    @Test func deliversConcurrently() async throws {
        let server = try Self.server()
        let transport = try SMTPTransport(
            relay: server.relay, extraCAFile: server.caFile, heloName: "quotes.example", timeouts: Self.timeouts)
        let messages = (0..<4).map { _ in Self.message() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for message in messages { group.addTask { try await transport.deliver(message) } }
            try await group.waitForAll()
        }
        for message in messages { #expect(try server.storedMessage(withID: message.messageID) != nil) }
    }
}

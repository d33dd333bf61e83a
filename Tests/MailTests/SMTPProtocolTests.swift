import Foundation
import Mail
import Testing

/// The SMTP client against ``ScriptedSMTPServer``: what it sends, and how it classifies each way
/// a relay can fail.
@Suite(.timeLimit(.minutes(1)))
struct SMTPProtocolTests {
    static let quick = SMTPTimeouts(
        connect: .seconds(5), greeting: .milliseconds(300), reply: .seconds(5), data: .seconds(5), dataReply: .seconds(5))

    static func transport(port: Int, credentials: SMTPCredentials? = nil) throws -> SMTPTransport {
        let relay = SMTPRelay(host: "127.0.0.1", port: port, credentials: credentials)
        return try SMTPTransport(relay: relay, heloName: "quotes.example", timeouts: quick)
    }

    /// The error delivering `message` through `transport` ends with, or nil when it succeeds.
    static func failure(of transport: SMTPTransport, delivering message: MailMessage = .fixture()) async -> MailDeliveryError? {
        do throws(MailDeliveryError) {
            try await transport.deliver(message)
            return nil
        } catch {
            return error
        }
    }

    @Test func deliversAndDotStuffsOnTheWire() async throws {
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay())
        let data = Array("Subject: dots\r\n\r\n.hidden\r\n.\r\n..two\r\nend".utf8)
        try await Self.transport(port: server.port).deliver(
            formatted: data, from: .fixture("a@quotes.example"), to: .fixture("b@example.org"))
        let transcript = await server.transcript()
        #expect(
            transcript == """
                EHLO quotes.example\r
                MAIL FROM:<a@quotes.example>\r
                RCPT TO:<b@example.org>\r
                DATA\r
                Subject: dots\r
                \r
                ..hidden\r
                ..\r
                ...two\r
                end\r
                .\r
                QUIT\r

                """)
    }

    @Test func sendsAFormattedMessage() async throws {
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay())
        let message = MailMessage.fixture(subject: "Grüße", text: ".dot\nline\n")
        try await Self.transport(port: server.port).deliver(message)
        let transcript = await server.transcript()
        let data = try #require(transcript.components(separatedBy: "DATA\r\n").last?.components(separatedBy: "\r\n.\r\nQUIT").first)
        #expect(Array((data + "\r\n").utf8) == message.formatted())
    }

    static let recipientRefusals: [(String, String)] = [
        ("451 4.3.0 try again later", "temporary"),
        ("452 4.2.2 mailbox full", "temporary"),
        ("550 5.1.1 no such user", "permanent"),
        ("553 5.1.3 bad address", "permanent"),
    ]

    /// A refused sender is the operator's to fix (--mail-from): the mail waits, never given up.
    @Test func aRefusedSenderIsTemporary() async throws {
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay(mail: .reply("553 5.7.1 sender not allowed")))
        let transport = try Self.transport(port: server.port)
        let error = try #require(await Self.failure(of: transport))
        guard case .temporary(let message) = error else {
            Issue.record("expected a temporary failure, got \(error)")
            return
        }
        #expect(message.contains("553"))
        #expect(!(await server.transcript()).contains("RCPT"))
    }

    @Test(arguments: recipientRefusals)
    func classifiesRecipientRefusals(reply: String, kind: String) async throws {
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay(rcpt: .reply(reply)))
        let transport = try Self.transport(port: server.port)
        let error = try #require(await Self.failure(of: transport))
        switch error {
        case .temporary(let message): #expect(kind == "temporary", "\(message)")
        case .permanent(let message): #expect(kind == "permanent", "\(message)")
        }
        #expect(error.message.contains(reply), "the relay's reply is in the message")
        #expect(!(await server.transcript()).contains("DATA"))
    }

    static let dataFailures: [(ScriptedReply, ScriptedReply, String)] = [
        (.reply("554 5.7.1 no relaying"), .reply("250 queued"), "permanent"),
        (.reply("451 4.3.0 later"), .reply("250 queued"), "temporary"),
        (.reply("354 go ahead"), .reply("554 5.6.0 content rejected"), "permanent"),
        (.reply("354 go ahead"), .reply("452 4.3.1 out of space"), "temporary"),
        (.replyAndClose(["354 go ahead"]), .reply("250 queued"), "temporary"),
        (.reply("354 go ahead"), .close, "temporary"),
    ]

    @Test(arguments: dataFailures)
    func classifiesDataFailures(data: ScriptedReply, endOfData: ScriptedReply, kind: String) async throws {
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay(data: data, endOfData: endOfData))
        let transport = try Self.transport(port: server.port)
        let error = try #require(await Self.failure(of: transport))
        if case .permanent = error { #expect(kind == "permanent", "\(error)") } else { #expect(kind == "temporary", "\(error)") }
    }

    @Test func silentRelayTimesOutQuickly() async throws {
        let server = try ScriptedSMTPServer(greeting: nil, respond: ScriptedSMTPServer.relay())
        let transport = try Self.transport(port: server.port)
        let start = ContinuousClock.now
        let error = await Self.failure(of: transport)
        let elapsed = ContinuousClock.now - start
        guard case .temporary(let message) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(message.contains("timed out"), "\(message)")
        // It waited for its greeting timeout (0.3 s), and not for the relay, which never speaks.
        // The upper bound is loose: under the whole suite on two cores, resuming the awaiting
        // task after the delivery thread ends was seen to take 18 s.
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(60), "\(elapsed)")
        #expect(await server.transcript() == "", "nothing sent before the greeting")
    }

    @Test func refusedConnectionIsTemporary() async throws {
        let transport = try Self.transport(port: try TestListener.closedPort())
        let error = await Self.failure(of: transport)
        guard case .temporary(let message) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(message.contains("Connection refused"), "\(message)")
    }

    @Test(arguments: [["AUTH PLAIN LOGIN"], ["AUTH=LOGIN", "AUTH PLAIN"], []])
    func neverSendsCredentialsWithoutStartTLS(extensions: [String]) async throws {
        let password = "s3cret-Pa55word"
        let server = try ScriptedSMTPServer(respond: ScriptedSMTPServer.relay(extensions: extensions))
        let transport = try Self.transport(port: server.port, credentials: SMTPCredentials(user: "mailer", password: password))
        let error = await Self.failure(of: transport)
        guard case .temporary(let message) = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(message.contains("STARTTLS"), "\(message)")
        let transcript = await server.transcript()
        #expect(transcript == "EHLO quotes.example\r\n")
        for secret in [password, Data(password.utf8).base64EncodedString(), Data("\0mailer\0\(password)".utf8).base64EncodedString()] {
            #expect(!transcript.contains(secret))
            #expect(!message.contains(secret))
        }
        #expect(!transcript.uppercased().contains("AUTH"))
    }

    @Test func fallsBackToHeloWhenEhloIsRefused() async throws {
        let relay = ScriptedSMTPServer.relay()
        let server = try ScriptedSMTPServer { line in line.hasPrefix("EHLO") ? .reply("502 5.5.1 no EHLO here") : relay(line) }
        try await Self.transport(port: server.port).deliver(.fixture())
        #expect(await server.transcript().hasPrefix("EHLO quotes.example\r\nHELO quotes.example\r\nMAIL FROM:"))
    }

    static let malformedReplies: [ScriptedReply] = [
        .reply("250-" + String(repeating: "x", count: 2000)),
        .reply((0..<150).map { "250-line \($0)" } + ["250 end"]),
        .reply(["250-first", "251 second"]),
        .reply("hello there"),
    ]

    @Test(arguments: malformedReplies)
    func malformedRepliesAreTemporary(ehloReply: ScriptedReply) async throws {
        let relay = ScriptedSMTPServer.relay()
        let server = try ScriptedSMTPServer { line in line.hasPrefix("EHLO") ? ehloReply : relay(line) }
        let transport = try Self.transport(port: server.port)
        let error = await Self.failure(of: transport)
        guard case .temporary = error else {
            Issue.record("expected a temporary failure, got \(String(describing: error))")
            return
        }
        #expect(!(await server.transcript()).contains("MAIL FROM"))
    }

    @Test func refusesABadHeloNameOrCAFile() throws {
        let relay = SMTPRelay(host: "127.0.0.1")
        #expect(throws: SMTPTransportSetupError.invalidHeloName("bad name\r\nRCPT TO:<x@y>")) {
            try SMTPTransport(relay: relay, heloName: "bad name\r\nRCPT TO:<x@y>")
        }
        _ = try SMTPTransport(relay: relay, heloName: "[127.0.0.1]")
        _ = try SMTPTransport(relay: relay, heloName: "[IPv6:::1]")
        let missing = #expect(throws: SMTPTransportSetupError.self) {
            try SMTPTransport(relay: relay, extraCAFile: "/nonexistent/ca.pem", heloName: "quotes.example")
        }
        guard case .caFile(path: "/nonexistent/ca.pem", reason: _)? = missing else {
            Issue.record("expected a CA file error, got \(String(describing: missing))")
            return
        }
        let notACertificate = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID().uuidString).pem")
        try Data("not a certificate\n".utf8).write(to: notACertificate)
        defer { try? FileManager.default.removeItem(at: notACertificate) }
        #expect(throws: SMTPTransportSetupError.self) {
            try SMTPTransport(relay: relay, extraCAFile: notACertificate.path, heloName: "quotes.example")
        }
    }
}

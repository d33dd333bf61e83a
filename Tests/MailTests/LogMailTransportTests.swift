import Logging
import Mail
import Testing

struct LogMailTransportTests {
    @Test func logsTheWholeMailInOneInfoLine() async throws {
        let sink = InMemoryLogSink()
        let transport = LogMailTransport(logger: Logger(label: "mail", level: .info, sink: sink))
        let message = MailMessage.fixture(
            subject: "Confirm your address", text: "Follow this link:\nhttps://quotes.example/confirm?t=abc\n")
        try await transport.deliver(message)
        let entries = sink.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.level == .info)
        #expect(entry.label == "mail")
        #expect(entry.message.contains("From: Quotebook <noreply@quotes.example>"))
        #expect(entry.message.contains("To: Someone@example.org"))
        #expect(entry.message.contains("Subject: Confirm your address"))
        #expect(entry.message.hasSuffix("Follow this link:\nhttps://quotes.example/confirm?t=abc\n"))
    }
}

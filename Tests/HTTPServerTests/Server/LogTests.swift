import HTTPServer
import Logging
import Testing

/// Every answered request, rejections and 408s included, leaves one info line in the access
/// format `CLIENT METHOD PATH STATUS BYTESB MILLISECONDSms` (`-` for what was never parsed).
@Suite(.timeLimit(.minutes(1))) struct LogTests {
    /// The info lines whose message matches `pattern` from the start to the end.
    static func infoLines(of server: TestServer, matching pattern: String) throws -> [LogRecord] {
        let regex = try Regex(pattern)
        return server.log.entries.filter { $0.level == .info && (try? regex.wholeMatch(in: $0.message)) != nil }
    }

    @Test func writesAccessLineAtInfoLevel() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET /logged?q=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        await server.stop()
        let lines = try Self.infoLines(of: server, matching: #"127\.0\.0\.1 GET /logged 200 (\d+)B \d+\.\d{3}ms"#)
        #expect(lines.count == 1)
        #expect(lines.first?.message.contains(" \(response.body.count)B ") == true)
        #expect(!server.log.entries.contains { $0.level != .info && $0.message.contains("GET /logged ") })
    }

    @Test func logsRejectionWithMethodPathStatusBytesAndDuration() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET /no-host?x=1 HTTP/1.1\r\n\r\n")
        #expect(response.status == 400)
        await server.stop()
        let lines = try Self.infoLines(
            of: server, matching: #"127\.0\.0\.1 GET /no-host 400 \#(response.body.count)B \d+\.\d{3}ms rejected: missing Host"#)
        #expect(lines.count == 1, "\(server.log.entries.map(\.message))")
    }

    @Test func logsRejectedUnparsableRequestWithDashes() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GARBAGE\r\n\r\n")
        #expect(response.status == 400)
        await server.stop()
        let lines = try Self.infoLines(
            of: server, matching: #"127\.0\.0\.1 - - 400 \#(response.body.count)B \d+\.\d{3}ms rejected: malformed request line"#)
        #expect(lines.count == 1, "\(server.log.entries.map(\.message))")
    }

    @Test func logsOversizedBodyRejectionWithMethodAndPath() async throws {
        var limits = HTTPLimits()
        limits.formBody = 10
        let server = try TestServer(limits: limits)
        let client = try server.connect()
        let response = try await client.exchange("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 50\r\n\r\n")
        #expect(response.status == 413)
        await server.stop()
        let lines = try Self.infoLines(of: server, matching: #"127\.0\.0\.1 POST /upload 413 \d+B \d+\.\d{3}ms rejected: .*"#)
        #expect(lines.count == 1, "\(server.log.entries.map(\.message))")
    }

    @Test func logsHeaderTimeoutWithPathOnceRequestLineArrived() async throws {
        // One loop: neither connection waits to be handed to another loop while time moves.
        let clock = ManualServerClock()
        let server = try TestServer(eventLoops: 1, clock: clock)
        let parsed = try server.connect()
        parsed.send("GET /slow HTTP/1.1\r\nHost: h\r\n")
        let unparsed = try server.connect()
        unparsed.send("GET /sl")
        await clock.settle()
        await clock.advance(by: .milliseconds(9_999))
        #expect(await parsed.hasNothingToRead())
        #expect(await unparsed.hasNothingToRead())
        await clock.advance(by: .milliseconds(1))
        #expect(try await parsed.readResponse().status == 408)
        #expect(try await unparsed.readResponse().status == 408)
        await server.stop()
        // The 408 took the 10 s of the timeout, to the microsecond.
        let withPath = try Self.infoLines(of: server, matching: #"127\.0\.0\.1 GET /slow 408 \d+B 10000\.000ms rejected: .*"#)
        let withDashes = try Self.infoLines(of: server, matching: #"127\.0\.0\.1 - - 408 \d+B 10000\.000ms rejected: .*"#)
        #expect(withPath.count == 1, "\(server.log.entries.map(\.message))")
        #expect(withDashes.count == 1, "\(server.log.entries.map(\.message))")
    }

    @Test func namesTheClientATrustedProxyForwardedFor() async throws {
        let server = try TestServer(trustedProxies: TrustedProxies([try #require(IPAddress("127.0.0.1"))]))
        let client = try server.connect()
        _ = try await client.exchange("GET /a HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 198.51.100.4, 203.0.113.9\r\n\r\n")
        _ = try await client.exchange("GET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = try await client.exchange("GET /c HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 2001:db8::7\r\n\r\n")
        await server.stop()
        // The nearest untrusted hop is the client; a request without the header is the peer's.
        #expect(try Self.infoLines(of: server, matching: #"203\.0\.113\.9 GET /a 200 \d+B \d+\.\d{3}ms"#).count == 1)
        #expect(try Self.infoLines(of: server, matching: #"127\.0\.0\.1 GET /b 200 \d+B \d+\.\d{3}ms"#).count == 1)
        #expect(try Self.infoLines(of: server, matching: #"2001:db8::7 GET /c 200 \d+B \d+\.\d{3}ms"#).count == 1)
    }

    @Test func ignoresXForwardedForFromAPeerItDoesNotTrust() async throws {
        let server = try TestServer(trustedProxies: TrustedProxies([try #require(IPAddress("192.0.2.1"))]))
        let client = try server.connect()
        _ = try await client.exchange("GET /spoof HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n")
        await server.stop()
        #expect(try Self.infoLines(of: server, matching: #"127\.0\.0\.1 GET /spoof 200 \d+B \d+\.\d{3}ms"#).count == 1)
    }

    @Test func pipelinedRequestsAnsweredInOneTurnEachGetTheirLineWithoutWaitingForAStop() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let paths = (1...20).map { "/piped/\($0)" }
        client.send(paths.map { "GET \($0)?secret=1 HTTP/1.1\r\nHost: h\r\n\r\n" }.joined())
        for _ in paths { #expect(try await client.readResponse().status == 200) }
        // The lines of a turn are written when it ends, before the loop waits again: the server
        // is still running, and every line is there, once, in the order answered.
        let deadline = ContinuousClock.now + .seconds(10)
        var lines: [LogRecord] = []
        while ContinuousClock.now < deadline {
            lines = try Self.infoLines(of: server, matching: #"127\.0\.0\.1 GET /piped/\d+ 200 \d+B \d+\.\d{3}ms"#)
            if lines.count >= paths.count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(lines.map { $0.message.split(separator: " ")[2] } == paths.map { Substring($0) })
        #expect(!server.log.entries.contains { $0.message.contains("secret") })
        await server.stop()
    }
}

/// Access lines are formatted into bytes, many to one write (``LogLines``).
struct LogLinesTests {
    @Test func formatsNumbersAndTextIntoLinesASinkGetsBackAsRecords() {
        var lines = LogLines(level: .info, label: "http")
        lines.startLine()
        lines.append("GET /é ")
        lines.append(0)
        lines.append(" ")
        lines.append(1_234_567_890_123)
        lines.append(" ")
        lines.append(7, width: 3)
        lines.append(".")
        lines.append(45, width: 3)
        lines.append(".")
        lines.append(1234, width: 3)
        lines.append(" ")
        lines.append(-5)
        lines.endLine()
        lines.startLine()
        lines.append("second")
        lines.endLine()
        #expect(String(decoding: lines.bytes, as: UTF8.self) == "info [http] GET /é 0 1234567890123 007.045.1234 0\ninfo [http] second\n")
        let sink = InMemoryLogSink()
        let logger = Logger(label: "any", level: .info, sink: sink)
        logger.write(&lines)
        #expect(lines.isEmpty)
        #expect(sink.entries == [
            LogRecord(level: .info, label: "http", message: "GET /é 0 1234567890123 007.045.1234 0"),
            LogRecord(level: .info, label: "http", message: "second"),
        ])
    }

    @Test func linesBelowTheLoggersLevelAreDroppedAndForgotten() {
        var lines = LogLines(level: .info, label: "http")
        lines.startLine()
        lines.append("dropped")
        lines.endLine()
        let sink = InMemoryLogSink()
        Logger(label: "any", level: .warning, sink: sink).write(&lines)
        #expect(sink.entries.isEmpty)
        #expect(lines.isEmpty)
    }
}

import HTTPServer
import Logging
import TestSupport
import Testing

/// The server survives clients that misbehave at the socket level and restarts cleanly:
/// resets (`MSG_NOSIGNAL`), rebinding (`SO_REUSEADDR`), the write timeout, the shutdown grace
/// period and the shutdown linger. The timed rules run on a manual clock with the default
/// timeouts (30 s write, 10 s grace, 50 ms linger at shutdown), checked just before and at the
/// deadline.
@Suite(.timeLimit(.minutes(1))) struct SocketRobustnessTests {
    /// A responder answering every request with `size` bytes of `x`.
    /// `size` bytes for every path but `/small`, which gets a few: a check that the server still
    /// serves others must not itself depend on reading megabytes within a short write timeout.
    static func large(_ size: Int) -> ClosureResponder {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        return ClosureResponder { request in
            HTTPResponse(status: .ok, body: request.path == "/small" ? Array("small".utf8) : body)
        }
    }

    /// Waits (polling every 10 ms, at most `limit`) until a log line satisfies `matches`. The
    /// limit is generous: these tests run on a manual clock, so no server timeout moves while they
    /// wait, and under ThreadSanitizer with the whole suite in parallel, queueing a 16 MiB answer
    /// once took over 5 s.
    static func waitForLog(
        _ server: TestServer, limit: Duration = .seconds(30), _ matches: (LogRecord) -> Bool
    ) async throws -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if server.log.entries.contains(where: matches) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Clients abort while the server writes a large answer, so the kernel fails a `send`
    /// with EPIPE (RST received in CLOSE_WAIT), which without `MSG_NOSIGNAL` raises SIGPIPE and
    /// ends the whole process. Even rounds close right after the request (the answer's first
    /// segment meets a closed socket and draws an RST); odd rounds half-close, read part of
    /// the answer, then close with `SO_LINGER` 0 (an RST mid-transfer).
    @Test func survivesClientResettingDuringLargeResponse() async throws {
        let size = 16 * 1024 * 1024
        let server = try TestServer(responder: Self.large(size))
        let rounds = 8
        for round in 0..<rounds {
            let client = try server.connect()
            client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
            if round.isMultiple(of: 2) {
                client.close()
                continue
            }
            client.shutdownWrite()
            while client.buffer.count < 256 * 1024 {
                guard await client.read().isData else { break }
            }
            #expect(client.buffer.count >= 256 * 1024)
            client.reset()
        }
        // Every connection is gone, and the process is still here.
        let closed = { server.log.entries.filter { $0.message.hasPrefix("closing connection") }.count }
        for _ in 0..<500 where closed() < rounds { try await Task.sleep(for: .milliseconds(10)) }
        #expect(closed() == rounds)
        let next = try server.connect()
        next.send("GET /after HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await next.readResponse(timeout: .seconds(10)).body.count == size)
        await server.stop()
    }

    @Test func rebindsSamePortRightAfterStoppingWithOpenConnections() async throws {
        let first = try TestServer()
        let port = first.port
        let idle = try first.connect()
        #expect(try await idle.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        let partial = try first.connect()
        partial.send("GET / HTTP/1.1\r\n")
        let closing = try first.connect()
        #expect(try await closing.exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").status == 200)
        // The server closes these first, so its side of each stays in TIME_WAIT on the port.
        await first.stop()
        #expect(await idle.isClosedByServer())
        #expect(await partial.isClosedByServer())
        let second = try TestServer(port: port)
        #expect(second.port == port)
        #expect(try await second.connect().exchange("GET /again HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await second.stop()
    }

    @Test func closesConnectionOfClientThatStopsReadingAfterWriteTimeout() async throws {
        let size = 16 * 1024 * 1024
        let clock = ManualServerClock()
        let server = try TestServer(responder: Self.large(size), clock: clock)
        let client = try server.connect()
        TestSocket.setReceiveBuffer(client.fd, bytes: 4096)
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        // Never reading: the socket buffers fill and the server's last progress is now.
        #expect(try await Self.waitForLog(server) { $0.message.hasPrefix("127.0.0.1 GET /big 200 ") })
        await clock.settle()
        let isTimedOut = { server.log.entries.contains { $0.message.hasSuffix("write timeout") } }
        await clock.advance(by: .milliseconds(29_999))
        #expect(!isTimedOut())
        await clock.advance(by: .milliseconds(1))
        // Else the drain below would trickle 16 MiB through the 4 KiB window for minutes.
        try #require(isTimedOut())
        // The close is abortive: the kernel drops what it still queued for this client instead
        // of trickling it through the 4 KiB window for minutes, so the end comes at once.
        let drained = ContinuousClock.now
        let (bytes, closed) = await client.readToEnd(timeout: .seconds(2))
        #expect(closed)
        #expect(bytes.count < size)
        #expect(ContinuousClock.now - drained < .seconds(3))
        client.close()
        #expect(try await server.connect().exchange("GET /small HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }

    /// A one-loop server on `clock` (see ``TestServer/beginShutdown(probe:)``) and an idle
    /// keep-alive connection to it, to show when a shutdown has begun.
    static func serverWithProbe(
        _ responder: some HTTPResponder, clock: ManualServerClock
    ) async throws -> (TestServer, probe: RawClient) {
        let server = try TestServer(responder: responder, eventLoops: 1, clock: clock)
        let probe = try server.connect()
        #expect(try await probe.exchange("GET /small HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        return (server, probe)
    }

    /// Moves the server's clock on by `delay` less 1 ms, where no connection has yet closed for
    /// `reason` and the shutdown still runs, then by 1 ms, where one has and the shutdown returns.
    static func expect(
        _ shutdown: ShutdownInProgress, of server: TestServer, toEndAfter delay: Duration, closing reason: String
    ) async throws {
        let clock = try #require(server.clock)
        let hasClosed = { server.log.entries.contains { $0.message.hasSuffix(": \(reason)") } }
        await clock.advance(by: delay - .milliseconds(1))
        #expect(!hasClosed())
        #expect(!shutdown.hasReturned)
        await clock.advance(by: .milliseconds(1))
        #expect(hasClosed())
        #expect(try await shutdown.returns())
    }

    @Test func endsShutdownAfterGracePeriodWhenResponderDoesNotFinish() async throws {
        let started = Counter()
        let clock = ManualServerClock()
        let (server, probe) = try await Self.serverWithProbe(
            ClosureResponder { request in
                guard request.path == "/slow" else { return .text("small") }
                started.increment()
                try? await Task.sleep(for: .seconds(3600))  // until cancelled
                return .text("too late")
            }, clock: clock)
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        try await started.wait(until: 1)
        let shutdown = await server.beginShutdown(probe: probe)
        await clock.advance(by: .milliseconds(9_999))
        #expect(await client.hasNothingToRead())
        #expect(!shutdown.hasReturned)
        await clock.advance(by: .milliseconds(1))
        #expect(await client.isClosedByServer())
        #expect(client.buffer.isEmpty)
        #expect(server.log.entries.contains { $0.message.hasSuffix("shutdown grace period over") })
        // The responder is cancelled, so `run()` returns without more time passing.
        #expect(try await shutdown.returns())
        await server.stop()
    }

    @Test func endsShutdownAfterGracePeriodWhenClientDoesNotRead() async throws {
        let clock = ManualServerClock()
        let (server, probe) = try await Self.serverWithProbe(Self.large(16 * 1024 * 1024), clock: clock)
        let client = try server.connect()
        TestSocket.setReceiveBuffer(client.fd, bytes: 4096)
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await Self.waitForLog(server) { $0.message.hasPrefix("127.0.0.1 GET /big 200 ") })
        await clock.settle()
        let shutdown = await server.beginShutdown(probe: probe)
        try await Self.expect(shutdown, of: server, toEndAfter: .seconds(10), closing: "shutdown grace period over")
        client.reset()
        await server.stop()
    }

    @Test func closesAKeepAliveResponseStillDrainingAtShutdownOnceItIsSent() async throws {
        // More than the kernel's socket buffers hold, so most of it still waits in the server
        // when the client, which has not read yet, sees the shutdown begin.
        let size = 32 * 1024 * 1024
        let clock = ManualServerClock()
        let (server, probe) = try await Self.serverWithProbe(Self.large(size), clock: clock)
        let client = try server.connect()
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await Self.waitForLog(server) { $0.message.hasPrefix("127.0.0.1 GET /big 200 ") })
        await clock.settle()
        let shutdown = await server.beginShutdown(probe: probe)
        // The whole response arrives, then the server closes: the keep-alive response was
        // encoded before the shutdown, but the connection must not idle until the grace ends.
        // No time passes meanwhile, so no timeout can have ended it.
        let (bytes, closed) = await client.readToEnd(timeout: .seconds(5))
        #expect(closed)
        #expect(bytes.count > size)
        // Closing connections linger 50 ms during a shutdown (the client has not closed).
        try await Self.expect(shutdown, of: server, toEndAfter: .milliseconds(50), closing: "linger timeout")
        await server.stop()
    }
}

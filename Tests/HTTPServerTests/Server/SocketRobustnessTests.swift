import HTTPServer
import Logging
import TestSupport
import Testing

/// The server survives clients that misbehave at the socket level and restarts cleanly:
/// resets (`MSG_NOSIGNAL`), rebinding (`SO_REUSEADDR`), the write timeout and the shutdown
/// grace period, with short configured values.
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

    /// Waits (polling every 10 ms, at most `limit`) until a log line satisfies `matches`.
    static func waitForLog(
        _ server: TestServer, limit: Duration = .seconds(5), _ matches: (LogRecord) -> Bool
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
        var timeouts = HTTPTimeouts()
        timeouts.write = .milliseconds(300)
        let size = 16 * 1024 * 1024
        let server = try TestServer(responder: Self.large(size), timeouts: timeouts)
        let client = try server.connect()
        TestSocket.setReceiveBuffer(client.fd, bytes: 4096)
        let start = ContinuousClock.now
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        // Never reading: the socket buffers fill, the server waits 300 ms for progress, closes.
        #expect(try await Self.waitForLog(server) { $0.message.hasSuffix("write timeout") })
        #expect(ContinuousClock.now - start < .seconds(5))
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

    @Test func endsShutdownAfterGracePeriodWhenResponderDoesNotFinish() async throws {
        var timeouts = HTTPTimeouts()
        timeouts.shutdownGrace = .milliseconds(300)
        let started = Counter()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                started.increment()
                try? await Task.sleep(for: .seconds(10))
                return .text("too late")
            }, timeouts: timeouts)
        let client = try server.connect()
        client.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        try await started.wait(until: 1)
        let start = ContinuousClock.now
        await server.stop()
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(3))
        #expect(await client.isClosedByServer())
        #expect(client.buffer.isEmpty)
        #expect(server.log.entries.contains { $0.message.hasSuffix("shutdown grace period over") })
    }

    @Test func endsShutdownAfterGracePeriodWhenClientDoesNotRead() async throws {
        var timeouts = HTTPTimeouts()
        timeouts.shutdownGrace = .milliseconds(300)
        let server = try TestServer(responder: Self.large(16 * 1024 * 1024), timeouts: timeouts)
        let client = try server.connect()
        TestSocket.setReceiveBuffer(client.fd, bytes: 4096)
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await Self.waitForLog(server) { $0.message.hasPrefix("GET /big 200 ") })
        let start = ContinuousClock.now
        await server.stop()
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(server.log.entries.contains { $0.message.hasSuffix("shutdown grace period over") })
        client.reset()
    }

    @Test func closesAKeepAliveResponseStillDrainingAtShutdownOnceItIsSent() async throws {
        var timeouts = HTTPTimeouts()
        timeouts.shutdownGrace = .seconds(8)
        // More than the kernel's socket buffers hold, so most of it still waits in the server
        // when the client, which has not read yet, sees the shutdown begin.
        let size = 32 * 1024 * 1024
        let server = try TestServer(responder: Self.large(size), timeouts: timeouts)
        let client = try server.connect()
        client.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await Self.waitForLog(server) { $0.message.hasPrefix("GET /big 200 ") })
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        let stopping = Task { await server.stop() }
        // The whole response arrives, then the server closes: the keep-alive response was
        // encoded before the shutdown, but the connection must not idle until the grace ends.
        let (bytes, closed) = await client.readToEnd(timeout: .seconds(5))
        #expect(closed)
        #expect(bytes.count > size)
        await stopping.value
        #expect(ContinuousClock.now - start < .seconds(6))
    }
}

import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

/// Slow clients are cut off: header section, body and idle keep-alive timeouts, tested with
/// short values.
@Suite(.timeLimit(.minutes(1))) struct TimeoutTests {
    static func timeouts(header: Int = 10_000, body: Int = 10_000, idle: Int = 10_000) -> HTTPTimeouts {
        var timeouts = HTTPTimeouts()
        timeouts.header = .milliseconds(header)
        timeouts.bodyRead = .milliseconds(body)
        timeouts.idle = .milliseconds(idle)
        return timeouts
    }

    @Test func cutsOffClientTricklingHeaders() async throws {
        let server = try TestServer(timeouts: Self.timeouts(header: 200))
        let client = try server.connect()
        let start = ContinuousClock.now
        // Slowloris: a byte every 50 ms keeps arriving but the header section never completes.
        let fd = client.fd
        let trickle = Task {
            for byte in ("GET / HTTP/1.1\r\nHost: h\r\nX-Slow: " + String(repeating: "z", count: 200)).utf8 {
                _ = TestSocket.send(fd, [byte])
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let response = try await client.readResponse()
        trickle.cancel()
        _ = try? await trickle.value
        #expect(response.status == 408)
        // The trickle would take 11.5 s; the 200 ms header timeout (checked every 20 ms) ends it.
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func cutsOffStalledBody() async throws {
        let server = try TestServer(timeouts: Self.timeouts(body: 200))
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
        let response = try await client.readResponse()
        #expect(response.status == 408)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func keepsBodyThatKeepsArriving() async throws {
        // Each gap (400 ms) is well within the per-read timeout, the whole body (2.4 s) is not.
        let server = try TestServer(timeouts: Self.timeouts(body: 1500))
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\n")
        // The trickle runs on a thread of its own: a Task.sleep on a busy cooperative pool (the
        // whole suite under ThreadSanitizer) can wake a second late and turn a gap into a timeout.
        let fd = client.fd
        await offPool {
            for byte in "abcdef".utf8 {
                Thread.sleep(forTimeInterval: 0.4)
                _ = TestSocket.send(fd, [byte])
            }
        }
        #expect(try await client.readResponse().text.hasSuffix("body=abcdef"))
        await server.stop()
    }

    @Test func closesIdleKeepAliveConnection() async throws {
        // 4 s: under ThreadSanitizer on a loaded machine the test's own thread has stalled for
        // over 2 s between connecting and sending, and the server rightly called that silence idle.
        let server = try TestServer(timeouts: Self.timeouts(idle: 4000))
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == 200)
        #expect(await client.isClosedByServer())
        // Closed silently: no 408 for a connection that was between requests.
        #expect(client.buffer.isEmpty)
        #expect(server.log.entries.contains { $0.message.hasSuffix("idle timeout") })
        await server.stop()
    }

    @Test func readsWhatArrivedWhileTheLoopWasHeldUpBeforeCallingAClientIdle() async throws {
        // One loop, responders on it: /stall holds the loop thread for 6 s, longer than the
        // 4 s idle timeout (wide, so that a stalled test thread between connecting and sending
        // does not itself look idle). The other client sends its request during the stall; when the loop
        // gets back, that client's idle deadline has passed but its request is waiting in the
        // socket, so it must be answered, not closed as idle.
        let responder = ClosureResponder { request in
            if request.path == "/stall" { usleep(6_000_000) }  // blocks the loop thread on purpose
            return HTTPResponse(status: .ok, body: Array(request.path.utf8))
        }
        let server = try TestServer(
            responder: responder, timeouts: Self.timeouts(idle: 4000), eventLoops: 1, execution: .eventLoop)
        let waiting = try server.connect()  // its idle deadline runs from its accept
        let staller = try server.connect()
        // Timed on a thread of its own: a task on a busy cooperative pool (the suite under
        // ThreadSanitizer) could wake seconds late and be rightly closed as idle.
        let (waitingSocket, stallerSocket) = (waiting.fd, staller.fd)
        await offPool {
            _ = TestSocket.send(stallerSocket, Array("GET /stall HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
            usleep(300_000)
            _ = TestSocket.send(waitingSocket, Array("GET /second HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        }
        let answer = try await waiting.readResponse()
        #expect(answer.status == 200)
        #expect(answer.text == "/second")
        #expect(try await staller.readResponse().text == "/stall")
        await server.stop()
    }
}

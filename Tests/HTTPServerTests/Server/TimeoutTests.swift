import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

/// Slow clients are cut off: header section, body and idle keep-alive timeouts, tested with
/// short values.
@Suite struct TimeoutTests {
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
        let server = try TestServer(timeouts: Self.timeouts(idle: 1000))
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == 200)
        #expect(await client.isClosedByServer(within: .seconds(3)))
        // Closed silently: no 408 for a connection that was between requests.
        #expect(client.buffer.isEmpty)
        #expect(server.log.entries.contains { $0.message.hasSuffix("idle timeout") })
        await server.stop()
    }
}

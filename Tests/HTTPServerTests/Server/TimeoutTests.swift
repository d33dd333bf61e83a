import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

/// Slow clients are cut off: header section, body and idle keep-alive timeouts, over real
/// sockets with the default timeouts and a manual clock. The rules themselves are unit-tested
/// on the state machine (`HTTPConnectionMachineTests`); these prove the loop applies them at
/// the time its clock says, with no test sleeping. `clock.advance(by:)` returns once the loops
/// have read their sockets and checked deadlines, so what a timeout sends is already in the
/// client's socket.
@Suite(.timeLimit(.minutes(1))) struct TimeoutTests {
    @Test func cutsOffClientTricklingHeaders() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(timeouts: .withoutBodyMinimumRate, clock: clock)
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\n")
        await clock.settle()
        // Slowloris: a field every second keeps arriving, but the 10 s header timeout counts
        // from the head's first byte.
        for second in 1..<10 {
            await clock.advance(by: .seconds(1))
            client.send("X-Slow-\(second): z\r\n")
            await clock.settle()
            #expect(await client.hasNothingToRead(), "cut off after \(second) s")
        }
        await clock.advance(by: .seconds(1))
        let response = try await client.readResponse()
        #expect(response.status == 408)
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func cutsOffStalledBody() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(timeouts: .withoutBodyMinimumRate, clock: clock)
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
        await clock.settle()
        await clock.advance(by: .milliseconds(9_999))
        #expect(await client.hasNothingToRead())
        await clock.advance(by: .milliseconds(1))
        let response = try await client.readResponse()
        #expect(response.status == 408)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func keepsBodyThatKeepsArriving() async throws {
        // Each gap (6 s) is within the 10 s body-read timeout; the whole body (36 s) is not.
        let clock = ManualServerClock()
        let server = try TestServer(timeouts: .withoutBodyMinimumRate, clock: clock)
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\n")
        await clock.settle()
        for byte in "abcdef".utf8 {
            await clock.advance(by: .seconds(6))
            client.send([byte])
            await clock.settle()
        }
        #expect(try await client.readResponse().text.hasSuffix("body=abcdef"))
        await server.stop()
    }

    @Test func closesIdleKeepAliveConnection() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(timeouts: .withoutBodyMinimumRate, clock: clock)
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == 200)
        await clock.advance(by: .milliseconds(59_999))
        #expect(await client.hasNothingToRead())
        await clock.advance(by: .milliseconds(1))
        #expect(await client.isClosedByServer())
        // Closed silently: no 408 for a connection that was between requests.
        #expect(client.buffer.isEmpty)
        #expect(server.log.entries.contains { $0.message.hasSuffix("idle timeout") })
        await server.stop()
    }

    @Test func readsWhatArrivedWhileTheLoopWasHeldUpBeforeCallingAClientIdle() async throws {
        // One loop, responders on it: /stall holds the loop thread until released. The other
        // client sends its request during the stall, and the clock passes its idle deadline;
        // when the loop gets back, the request waiting in the socket must be answered, not the
        // connection closed as idle.
        let stalled = Counter()
        let release = DispatchSemaphore(value: 0)
        let responder = ClosureResponder { request in
            if request.path == "/stall" {
                stalled.increment()
                release.wait()  // blocks the loop thread on purpose
            }
            return HTTPResponse(status: .ok, body: Array(request.path.utf8))
        }
        let clock = ManualServerClock()
        let server = try TestServer(responder: responder, eventLoops: 1, execution: .eventLoop, clock: clock)
        let waiting = try server.connect()
        #expect(try await waiting.exchange("GET /first HTTP/1.1\r\nHost: h\r\n\r\n").text == "/first")
        // Idle from now on. The loop is held up before the request arrives and time moves.
        let staller = try server.connect()
        staller.send("GET /stall HTTP/1.1\r\nHost: h\r\n\r\n")
        try await stalled.wait(until: 1)
        waiting.send("GET /second HTTP/1.1\r\nHost: h\r\n\r\n")
        clock.advanceWithoutWaiting(by: .seconds(61))
        release.signal()
        let answer = try await waiting.readResponse()
        #expect(answer.status == 200)
        #expect(answer.text == "/second")
        #expect(try await staller.readResponse().text == "/stall")
        await server.stop()
    }
}

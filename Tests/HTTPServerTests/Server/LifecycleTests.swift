import Foundation
import HTTPServer
import Logging
import Testing

/// Starting, binding errors and graceful shutdown.
@Suite(.timeLimit(.minutes(1))) struct LifecycleTests {
    @Test func reportsAddressInUseNamingBind() async throws {
        let first = try TestServer()
        let second = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: first.port), responder: EchoResponder(),
            logger: .discarding())
        #expect(throws: HTTPServerError.systemCall("bind", errno: 98)) { try second.start() }
        await second.shutdown()
        await first.stop()
    }

    @Test func rejectsInvalidHost() {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "not an address", port: 0), responder: EchoResponder(),
            logger: .discarding())
        #expect(throws: HTTPServerError.invalidAddress("not an address")) { try server.start() }
    }

    @Test func shutdownIsIdempotentAndEndsRun() async throws {
        let server = try TestServer()
        let client = try server.connect()
        _ = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        async let first: Void = server.server.shutdown()
        async let second: Void = server.server.shutdown()
        _ = await (first, second)
        await server.stop()
        #expect(await client.isClosedByServer())
        #expect(throws: (any Error).self) { try RawClient(port: server.port) }
    }

    @Test func shutdownLetsRequestInFlightFinish() async throws {
        // The responder finishes only once the shutdown has begun, which the idle connection's
        // close shows (one loop: it is the busy connection's loop too). Time never moves, so
        // nothing here waits for a timeout.
        let started = Counter()
        let finish = Gate()
        defer { finish.open() }
        let clock = ManualServerClock()
        let server = try TestServer(
            responder: ClosureResponder { request in
                guard request.path == "/busy" else { return .text("idle") }
                started.increment()
                await finish.wait()
                return .text("finished")
            }, eventLoops: 1, clock: clock)
        let busy = try server.connect()
        let idle = try server.connect()
        #expect(try await idle.exchange("GET /idle HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        busy.send("GET /busy HTTP/1.1\r\nHost: h\r\n\r\n")
        try await started.wait(until: 1)
        let shutdown = await server.beginShutdown(probe: idle)
        finish.open()
        let response = try await busy.readResponse()
        #expect(response.text == "finished")
        #expect(response.header("Connection") == "close")
        #expect(await busy.isClosedByServer())
        // The client's close ends the linger, the last connection, and so the shutdown.
        busy.close()
        #expect(try await shutdown.returns())
        await server.stop()
    }

    @Test func shutdownBeforeRunReturns() async throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: EchoResponder(),
            logger: .discarding())
        _ = try server.start()
        await server.shutdown()
        await server.run()
    }
}

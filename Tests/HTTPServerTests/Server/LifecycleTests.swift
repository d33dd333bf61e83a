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
        let started = Counter()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                started.increment()
                try? await Task.sleep(for: .milliseconds(300))
                return .text("finished")
            })
        let busy = try server.connect()
        let idle = try server.connect()
        busy.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        try await started.wait(until: 1)
        let stopping = Task { await server.stop() }
        let response = try await busy.readResponse()
        #expect(response.text == "finished")
        #expect(await busy.isClosedByServer())
        #expect(await idle.isClosedByServer())
        await stopping.value
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

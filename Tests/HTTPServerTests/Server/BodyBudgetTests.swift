import HTTPServer
import Testing

/// Request bodies share a memory budget: a body reserves its declared size before it is read,
/// one that does not fit waits unread (no `100 Continue` either) until another gives its
/// reservation back, and one still waiting at the body-read timeout gets 503 with
/// `Retry-After`. Other requests are served meanwhile. One loop, 1,000-byte limits and budget.
@Suite(.timeLimit(.minutes(1))) struct BodyBudgetTests {
    static func server(clock: ManualServerClock? = nil) throws -> TestServer {
        var limits = HTTPLimits()
        limits.formBody = 1000
        limits.uploadBody = 1000
        return try TestServer(
            limits: limits, timeouts: .withoutBodyMinimumRate, eventLoops: 1, bodyMemoryBudget: 1000,
            clock: clock ?? ManualServerClock())
    }

    static func head(length: Int, expectContinue: Bool = false) -> String {
        "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: \(length)\r\n"
            + (expectContinue ? "Expect: 100-continue\r\n" : "") + "\r\n"
    }

    @Test func aBodyThatDoesNotFitWaitsUntilAnotherIsAnswered() async throws {
        let server = try Self.server()
        let clock = try #require(server.clock)
        let first = try server.connect()
        let second = try server.connect()
        let reader = try server.connect()
        first.send(Self.head(length: 600) + String(repeating: "a", count: 100))
        await clock.settle()
        second.send(Self.head(length: 600) + String(repeating: "b", count: 600))
        await clock.settle()
        #expect(await second.hasNothingToRead(), "600 + 600 bytes do not fit in 1,000")
        // Requests without a body need no budget.
        #expect(try await reader.exchange("GET /meanwhile HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        first.send(String(repeating: "a", count: 500))
        #expect(try await first.readResponse().text.hasSuffix("body=" + String(repeating: "a", count: 600)))
        #expect(try await second.readResponse().text.hasSuffix("body=" + String(repeating: "b", count: 600)))
        await server.stop()
    }

    @Test func continueIsSentOnlyOnceTheBodyHasMemory() async throws {
        let server = try Self.server()
        let clock = try #require(server.clock)
        let first = try server.connect()
        let second = try server.connect()
        first.send(Self.head(length: 1000, expectContinue: true))
        #expect(try await first.readResponse().status == 100)
        second.send(Self.head(length: 10, expectContinue: true))
        await clock.settle()
        #expect(await second.hasNothingToRead())
        first.send(String(repeating: "x", count: 1000))
        #expect(try await first.readResponse().status == 200)
        #expect(try await second.readResponse().status == 100)
        second.send("0123456789")
        #expect(try await second.readResponse().text.hasSuffix("body=0123456789"))
        await server.stop()
    }

    @Test func aBodyStillWaitingAtTheBodyReadTimeoutGets503WithRetryAfter() async throws {
        let server = try Self.server()
        let clock = try #require(server.clock)
        let holder = try server.connect()
        let waiter = try server.connect()
        holder.send(Self.head(length: 1000))
        await clock.settle()
        await clock.advance(by: .seconds(5))
        waiter.send(Self.head(length: 10) + "0123456789")
        await clock.settle()
        // The holder times out first (no body byte for 10 s): its reservation goes back, and
        // the waiter, 5 s into its wait, gets the memory and is answered.
        await clock.advance(by: .seconds(5))
        #expect(try await holder.readResponse().status == 408)
        #expect(try await waiter.readResponse().text.hasSuffix("body=0123456789"))

        // Now one that waits for the whole body-read timeout.
        let holding = try server.connect()
        let waiting = try server.connect()
        holding.send(Self.head(length: 1000) + "x")
        await clock.settle()
        await clock.advance(by: .seconds(1))
        waiting.send(Self.head(length: 10))
        await clock.settle()
        await clock.advance(by: .seconds(8))
        holding.send("x")  // progress: the holder keeps its reservation
        await clock.settle()
        await clock.advance(by: .seconds(2))
        let refused = try await waiting.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(await waiting.isClosedByServer())
        await server.stop()
    }
}

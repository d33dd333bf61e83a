import Testing
@testable import HTTPServer

/// Behaviour of ``HTTPConnectionMachine`` that contradicts its documented rules. These tests
/// FAIL against the current source on purpose; each states the rule, the scenario and what the
/// machine does instead.
@Suite struct HTTPConnectionMachineBugTests {
    static let t0 = MachineDriver.start

    /// Rule: the write timeout is the "longest wait for a client to accept more response
    /// bytes". `streamed(_:)` queues a chunk without restarting the write clock (`lastWrite`),
    /// so a chunk queued after a quiet spell that the socket cannot take at once is already past
    /// its deadline: the machine says deadline t0 + 30 s and aborts on the next tick.
    @Test func streamChunkQueuedAfterAQuietSpellGetsTheWholeWriteTimeout() {
        var driver = MachineDriver.started(in: .streaming)  // head sent at t0
        let chunkAt = Self.t0 + .seconds(100)
        #expect(driver.streamed("data", at: chunkAt) == .send(nil))
        #expect(driver.flush(at: chunkAt, accepting: 0) == .none)  // the socket is full for now
        #expect(driver.deadline == chunkAt + .seconds(30))
        #expect(driver.tick(at: chunkAt + .seconds(1)) == .none)
    }

    /// Same rule: `bodyGranted(now:)` queues `100 Continue` without restarting the write clock,
    /// so on a keep-alive connection whose last write was 50 s ago the interim response is
    /// already past its write deadline (t0 + 30 s) if the socket does not take it at once.
    @Test func continueQueuedAfterAnIdleSpellGetsTheWholeWriteTimeout() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(.bytes("a"), at: Self.t0)
        _ = driver.flush(at: Self.t0)
        let postAt = Self.t0 + .seconds(50)
        #expect(driver.received(Wire.postHead("/", length: 5, "Expect: 100-continue"), at: postAt) == .reserveBody(5))
        #expect(driver.bodyGranted(at: postAt) == .send(nil))
        #expect(driver.flush(at: postAt, accepting: 0) == .none)
        #expect(driver.deadline == postAt + .seconds(30))
        #expect(driver.tick(at: postAt + .seconds(1)) == .none)
    }

    /// Rule (RFC 9112 §2.2; "idle counts from the end of the last response"): a CRLF some
    /// clients send after a POST body is ignored, not the start of the next head. The machine
    /// enters `.head`, gives it the 10 s header timeout and answers an unsolicited 408 to a
    /// client that is merely idle.
    @Test func crlfAfterABodyLeavesTheConnectionIdle() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.post("/", body: "hi") + "\r\n", at: Self.t0)
        #expect(driver.bodyGranted(at: Self.t0) == .dispatch("POST /"))
        #expect(driver.respond(.bytes("a"), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0) == .none)
        #expect(driver.phase == .idle)
        #expect(driver.deadline == Self.t0 + .seconds(60))
        #expect(driver.tick(at: Self.t0 + .seconds(10)) == .none)
    }

    /// Rule (the brief for this machine): a FIN after a complete request gets the answer, then
    /// `.close(.responseSentClientClosed)`. `responseReady` ignores `peerClosed`, so the answer
    /// is a keep-alive one and the close comes from `advance` as `.clientClosed`, which the log
    /// reads as "client closed" although the response was sent.
    @Test func finAfterACompleteRequestClosesAsResponseSent() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .cancelResponder)
        #expect(driver.respond(.bytes("answer"), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0) == .close(.responseSentClientClosed))
    }
}

import Testing
@testable import HTTPServer

/// Regressions: four behaviours a review of ``HTTPConnectionMachine`` found contradicting its
/// rules (each failed before its fix), with the rule and the scenario.
@Suite struct HTTPConnectionMachineRegressionTests {
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

    /// Same rule: `bodyGranted(now:)` queued `100 Continue` without restarting the write clock,
    /// so on a keep-alive connection whose last write was 50 s ago the interim response was
    /// already past its write deadline if the socket did not take it at once.
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
    /// entered `.head`, gave it the 10 s header timeout and answered an unsolicited 408 to a
    /// client that was merely idle.
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

    /// Rule: a FIN after a complete request, with nothing more buffered, gets the answer with
    /// `Connection: close` (no further request can come), then `.close(.responseSentClientClosed)`.
    /// The answer used to claim keep-alive.
    @Test func finAfterACompleteRequestClosesAsResponseSent() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .cancelResponder)
        #expect(driver.respond(.bytes("answer"), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0) == .close(.responseSentClientClosed))
    }
}

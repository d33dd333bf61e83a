import Testing
@testable import HTTPServer

/// When each of ``HTTPConnectionMachine``'s clocks starts and restarts: header 10 s from the
/// head's first byte, body 10 s from the last body byte, idle 60 s from the last write, write
/// 30 s from the last progress, linger 2 s (50 ms in shutdown), grace 10 s over all.
@Suite struct HTTPConnectionMachineTimeoutTests {
    static let t0 = MachineDriver.start

    /// Expects nothing one nanosecond before `deadline`, then `step` at it.
    static func expectExpiry(
        of driver: inout MachineDriver, at deadline: UInt64, _ step: Step, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(driver.deadline == deadline, sourceLocation: sourceLocation)
        #expect(driver.tick(at: deadline - 1) == .none, sourceLocation: sourceLocation)
        #expect(driver.tick(at: deadline) == step, sourceLocation: sourceLocation)
    }

    @Test func headerTimeoutCountsFromTheFirstByteOfATricklingHead() {
        var driver = MachineDriver(now: Self.t0)
        let first = Self.t0 + .seconds(20)  // idle before: does not count
        _ = driver.received("G", at: first)
        _ = driver.received("ET / HTTP/1.1\r\n", at: first + .seconds(4))
        _ = driver.received("Host: x\r\n", at: first + .seconds(8))
        #expect(driver.phase == .head)
        Self.expectExpiry(of: &driver, at: first + .seconds(10), .reject(408))
    }

    @Test func headerTimeoutOfAPipelinedRequestStartsWhenTheAnswerBeforeIsQueued() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/") + "GET /b HTTP/1.1\r\n", at: Self.t0)
        let answered = Self.t0 + .seconds(5)
        _ = driver.respond(.bytes("a"), at: answered)
        _ = driver.flush(at: answered)
        #expect(driver.phase == .head)
        Self.expectExpiry(of: &driver, at: answered + .seconds(10), .reject(408))
    }

    @Test func bodyTimeoutRestartsWithEachBodyByte() {
        var driver = MachineDriver.started(in: .body)  // 2 of 5 bytes at t0
        #expect(driver.deadline == Self.t0 + .seconds(10))
        _ = driver.received("l", at: Self.t0 + .seconds(8))
        #expect(driver.deadline == Self.t0 + .seconds(18))
        _ = driver.received("l", at: Self.t0 + .seconds(17))
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(27), .reject(408))
    }

    @Test func bodyTimeoutOfAChunkedBodyRestartsWithEachBodyByte() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.message("POST / HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]), at: Self.t0)
        _ = driver.bodyGranted(at: Self.t0)
        _ = driver.received("5\r\nhel", at: Self.t0 + .seconds(9))
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(19), .reject(408))
    }

    @Test func bodyTimeoutWhileWaitingForTheBudgetCountsFromTheHead() {
        var driver = MachineDriver.started(in: .waitingForBudget)
        _ = driver.received("hel", at: Self.t0 + .seconds(9))  // read, not parsed: no restart
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(10), .reject(503))
    }

    @Test func bodyTimeoutStartsAtTheGrant() {
        var driver = MachineDriver.started(in: .waitingForBudget)
        _ = driver.bodyGranted(at: Self.t0 + .seconds(7))
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(17), .reject(408))
    }

    @Test func idleTimeoutCountsFromTheLastWrite() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(.bytes("a"), at: Self.t0 + .seconds(1))
        _ = driver.flush(at: Self.t0 + .seconds(2), accepting: 10)
        #expect(driver.deadline == Self.t0 + .seconds(32))  // still sending: the write timeout
        _ = driver.flush(at: Self.t0 + .seconds(7))
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(67), .close(.idleTimeout))
        #expect(driver.phase == .closed)
    }

    @Test func writeTimeoutAbortsWhenOutputStaysPending() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(.bytes("a"), at: Self.t0)
        #expect(driver.deadline == Self.t0 + .seconds(30))
        _ = driver.flush(at: Self.t0 + .seconds(20), accepting: 10)  // progress restarts it
        _ = driver.flush(at: Self.t0 + .seconds(40), accepting: 0)  // none does not
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(50), .abort(.writeTimeout))
        #expect(driver.phase == .closed)
    }

    @Test func writeTimeoutStandsInForTheHeaderTimeoutWhileAnAnswerIsSending() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/") + "GET /b HTTP/1.1\r\n", at: Self.t0)
        _ = driver.respond(.bytes("a"), at: Self.t0)
        _ = driver.flush(at: Self.t0, accepting: 10)
        #expect(driver.phase == .head)
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(30), .abort(.writeTimeout))
    }

    @Test func respondingAndStreamingWaitForTheServerWithoutDeadline() {
        var driver = MachineDriver.started(in: .responding)
        let late = Self.t0 + .seconds(1000)
        #expect(driver.deadline == nil)
        #expect(driver.tick(at: late) == .none)
        #expect(driver.respond(.streamed(), at: late) == .startStream)
        _ = driver.flush(at: late)
        #expect(driver.deadline == nil)
        #expect(driver.tick(at: late + .seconds(1000)) == .none)
        #expect(driver.streamed("x", at: late + .seconds(1000)) == .send(nil))
    }

    @Test func lingerLastsTwoSeconds() {
        var driver = MachineDriver.started(in: .closing)
        let sent = Self.t0 + .seconds(3)
        #expect(driver.flush(at: sent) == .halfClose)
        Self.expectExpiry(of: &driver, at: sent + .seconds(2), .close(.lingerTimeout))
    }

    @Test func lingerDuringShutdownLastsFiftyMilliseconds() {
        var driver = MachineDriver.started(in: .responding)
        _ = driver.shutdown(at: Self.t0)
        let answered = Self.t0 + .seconds(1)
        #expect(driver.respond(.bytes("a"), at: answered) == .send(200))
        #expect(driver.phase == .closing)
        #expect(driver.pending.contains("Connection: close\r\n"))
        #expect(driver.flush(at: answered) == .halfClose)
        Self.expectExpiry(of: &driver, at: answered + .milliseconds(50), .close(.lingerTimeout))
    }

    @Test func requestFinishingDuringShutdownIsAnsweredWithClose() {
        var driver = MachineDriver.started(in: .body)
        _ = driver.shutdown(at: Self.t0)
        #expect(driver.received("llo", at: Self.t0 + .seconds(1)) == .dispatch("POST /upload"))
        #expect(driver.respond(.bytes("ok"), at: Self.t0 + .seconds(1)) == .send(200))
        #expect(driver.pending.contains("Connection: close\r\n"))
        #expect(driver.phase == .closing)
    }

    @Test func shutdownGraceEndsAResponderThatTakesTooLong() {
        var driver = MachineDriver.started(in: .responding)
        _ = driver.shutdown(at: Self.t0)
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(10), .close(.shutdownGraceOver))
        #expect(driver.respond(.bytes("late"), at: Self.t0 + .seconds(11)) == .none)
    }

    @Test func shutdownGraceEndsAClientStillReadingSlowly() {
        var driver = MachineDriver.started(in: .closing)
        _ = driver.shutdown(at: Self.t0)
        for second in 1...9 { _ = driver.flush(at: Self.t0 + .seconds(UInt64(second)), accepting: 1) }
        Self.expectExpiry(of: &driver, at: Self.t0 + .seconds(10), .close(.shutdownGraceOver))
    }
}

import Testing
@testable import HTTPServer

/// A body must keep arriving: after a 5 s grace it must average the minimum rate since its
/// reading began, and it must be whole within the overall deadline (120 s), else 408 — while a
/// body that keeps to the rate is never cut off early. The pause between bytes (10 s) still
/// holds on its own.
@Suite struct HTTPConnectionMachineBodyRateTests {
    static let t0 = MachineDriver.start

    static func granted(length: Int, rate: Int) -> MachineDriver {
        var driver = MachineDriver(rules: .testing(bodyMinimumRate: rate), now: t0)
        _ = driver.received(Wire.postHead("/", length: length), at: t0)
        _ = driver.bodyGranted(at: t0)
        return driver
    }

    @Test func aTricklingBodyIsCutOffOnceItFallsBelowTheRateAfterTheGrace() {
        // 100 bytes a second required; one byte every 2 s keeps within the 10 s pause.
        var driver = Self.granted(length: 10_000, rate: 100)
        #expect(driver.deadline == Self.t0 + .seconds(5))  // nothing received: the grace only
        _ = driver.received("x", at: Self.t0 + .seconds(2))
        // 1 byte earns 10 ms past the grace.
        #expect(driver.deadline == Self.t0 + .seconds(5) + .milliseconds(10))
        #expect(driver.tick(at: Self.t0 + .seconds(5) + .milliseconds(9)) == .none)
        #expect(driver.tick(at: Self.t0 + .seconds(5) + .milliseconds(10)) == .reject(408))
    }

    @Test func aBodyThatKeepsToTheRateIsNotCutOff() {
        var driver = Self.granted(length: 4_000, rate: 100)
        // 200 bytes a second, twice the minimum, for 20 s: never past its deadline.
        for second in 1...19 {
            let at = Self.t0 + .seconds(UInt64(second))
            #expect(driver.tick(at: at) == .none)
            _ = driver.received(String(repeating: "x", count: 200), at: at)
            #expect(driver.deadline! > at + .seconds(1))
        }
        #expect(driver.received(String(repeating: "x", count: 200), at: Self.t0 + .seconds(20)) == .dispatch("POST /"))
    }

    @Test func aBodyStillArrivingAtTheOverallDeadlineGets408() {
        var driver = Self.granted(length: 1_000_000, rate: 1)
        var at = Self.t0
        for _ in 0..<119 {
            at += .seconds(1)
            _ = driver.received(String(repeating: "x", count: 100), at: at)
        }
        #expect(driver.deadline == Self.t0 + .seconds(120))
        #expect(driver.tick(at: Self.t0 + .seconds(120) - 1) == .none)
        #expect(driver.tick(at: Self.t0 + .seconds(120)) == .reject(408))
    }

    @Test func theRateCountsFromTheGrantNotWhileTheBodyWaitedForMemory() {
        var driver = MachineDriver(rules: .testing(bodyMinimumRate: 100), now: Self.t0)
        _ = driver.received(Wire.postHead("/", length: 10_000), at: Self.t0)
        let grant = Self.t0 + .seconds(8)
        _ = driver.bodyGranted(at: grant)
        #expect(driver.deadline == grant + .seconds(5))
    }

    @Test func withoutAMinimumRateOnlyThePauseAndTheDeadlineCount() {
        var driver = Self.granted(length: 10, rate: 0)
        _ = driver.received("x", at: Self.t0 + .seconds(9))
        #expect(driver.deadline == Self.t0 + .seconds(19))
    }

    @Test func aRequestAnsweredBeforeItsBodyClosesAfterTheAnswerAndDropsTheBody() {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.received(Wire.postHead("/login", length: 900_000) + "abc", at: Self.t0) == .reserveBody(900_000))
        #expect(driver.machine.bodyHead?.target == "/login")
        #expect(driver.answerBeforeBody(.text("no", status: .forbidden), at: Self.t0) == .send(403))
        #expect(driver.machine.bodyHead == nil)
        #expect(driver.phase == .closing)
        // What the client still sends is dropped, never parsed as a request.
        #expect(driver.received("GET / HTTP/1.1\r\nHost: x\r\n\r\n", at: Self.t0) == .none)
    }
}

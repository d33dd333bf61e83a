import Testing
@testable import HTTPServer

/// Every phase of ``HTTPConnectionMachine`` against every event, one table per event, each
/// phase reached by ``MachineDriver/started(in:rules:)`` at ``MachineDriver/start``.
@Suite struct HTTPConnectionMachineTests {
    typealias Phase = HTTPConnectionMachine.Phase

    static let t0 = MachineDriver.start
    static let phases: [Phase] = [
        .idle, .head, .waitingForBudget, .body, .responding, .streaming, .closing, .lingering, .closed,
    ]

    /// What one event does to a connection in one phase.
    struct Row: Sendable, CustomTestStringConvertible {
        var phase: Phase
        var step: Step
        var after: Phase
        /// The deadline before the event (or after it, where a test says so); nil: none.
        var deadline: UInt64?
        var testDescription: String { "\(phase)" }

        init(_ phase: Phase, _ step: Step, _ after: Phase, deadline: UInt64? = nil) {
            self.phase = phase
            self.step = step
            self.after = after
            self.deadline = deadline
        }
    }

    // MARK: Questions

    @Test(arguments: [
        Row(.idle, .none, .idle, deadline: t0 + .seconds(60)),
        Row(.head, .none, .head, deadline: t0 + .seconds(10)),
        Row(.waitingForBudget, .none, .waitingForBudget, deadline: t0 + .seconds(10)),
        Row(.body, .none, .body, deadline: t0 + .seconds(10)),
        Row(.responding, .none, .responding),
        Row(.streaming, .none, .streaming),
        Row(.closing, .none, .closing, deadline: t0 + .seconds(30)),
        Row(.lingering, .none, .lingering, deadline: t0 + .seconds(2)),
        Row(.closed, .none, .closed),
    ])
    func deadlineOfEachPhase(_ row: Row) {
        let driver = MachineDriver.started(in: row.phase)
        #expect(driver.phase == row.phase)
        #expect(driver.deadline == row.deadline)
    }

    @Test(arguments: phases)
    func wantsInputInEveryPhaseButClosed(_ phase: Phase) {
        let driver = MachineDriver.started(in: phase)
        #expect(driver.wantsInput == (phase != .closed))
    }

    @Test func isIdleOnlyBetweenRequestsWithNothingBuffered() {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.machine.isIdle)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        #expect(!driver.machine.isIdle)
        _ = driver.respond(.bytes("a"), at: Self.t0)
        #expect(driver.phase == .idle)
        #expect(!driver.machine.isIdle)  // the answer is not sent yet
        _ = driver.flush(at: Self.t0)
        #expect(driver.machine.isIdle)
    }

    // MARK: Received bytes

    /// Bytes that arrive in `row.phase`, and how many of them wait unparsed afterwards.
    struct Arrival: Sendable, CustomTestStringConvertible {
        var row: Row
        var bytes: String
        var keptUnparsed: Int
        var testDescription: String { row.testDescription }

        init(_ row: Row, _ bytes: String, keptUnparsed: Int = 0) {
            self.row = row
            self.bytes = bytes
            self.keptUnparsed = keptUnparsed
        }
    }

    static let next = Wire.get("/next")

    @Test(arguments: [
        Arrival(Row(.idle, .dispatch("GET /next"), .responding), next),
        Arrival(Row(.head, .dispatch("GET /"), .responding), "st: x\r\n\r\n"),
        Arrival(Row(.waitingForBudget, .none, .waitingForBudget), "hello", keptUnparsed: 5),
        Arrival(Row(.body, .dispatch("POST /upload"), .responding), "llo"),
        Arrival(Row(.responding, .none, .responding), next, keptUnparsed: next.utf8.count),
        Arrival(Row(.streaming, .none, .streaming), next, keptUnparsed: next.utf8.count),
        Arrival(Row(.closing, .none, .closing), next),
        Arrival(Row(.lingering, .none, .lingering), next),
        Arrival(Row(.closed, .none, .closed), next),
    ])
    func receivedBytes(_ arrival: Arrival) {
        var driver = MachineDriver.started(in: arrival.row.phase)
        #expect(driver.received(arrival.bytes, at: Self.t0 + .seconds(1)) == arrival.row.step)
        #expect(driver.phase == arrival.row.after)
        #expect(driver.unconsumedInputCount == arrival.keptUnparsed)
    }

    // MARK: End of input

    @Test(arguments: [
        Row(.idle, .close(.clientClosed), .closed),
        Row(.head, .close(.clientClosed), .closed),
        Row(.waitingForBudget, .none, .waitingForBudget),  // its body may be buffered whole
        Row(.body, .close(.clientClosed), .closed),
        Row(.responding, .cancelResponder, .responding),
        Row(.streaming, .close(.clientClosedDuringStream), .closed),
        Row(.closing, .none, .closing),
        Row(.lingering, .close(.lingerEnded), .closed),
        Row(.closed, .none, .closed),
    ])
    func endOfInput(_ row: Row) {
        var driver = MachineDriver.started(in: row.phase)
        #expect(driver.endOfInput(at: Self.t0 + .seconds(1)) == row.step)
        #expect(driver.phase == row.after)
    }

    // MARK: Ticks

    /// `deadline` is the phase's; a phase without one is ticked an hour later.
    @Test(arguments: [
        Row(.idle, .close(.idleTimeout), .closed, deadline: t0 + .seconds(60)),
        Row(.head, .reject(408), .head, deadline: t0 + .seconds(10)),
        Row(.waitingForBudget, .reject(503), .waitingForBudget, deadline: t0 + .seconds(10)),
        Row(.body, .reject(408), .body, deadline: t0 + .seconds(10)),
        Row(.responding, .none, .responding),
        Row(.streaming, .none, .streaming),
        Row(.closing, .abort(.writeTimeout), .closed, deadline: t0 + .seconds(30)),
        Row(.lingering, .close(.lingerTimeout), .closed, deadline: t0 + .seconds(2)),
        Row(.closed, .none, .closed),
    ])
    func tickActsFromTheDeadlineOn(_ row: Row) {
        var driver = MachineDriver.started(in: row.phase)
        let deadline = row.deadline ?? Self.t0 + .seconds(3600)
        #expect(driver.tick(at: deadline - 1) == .none)
        #expect(driver.phase == row.phase)
        #expect(driver.tick(at: deadline) == row.step)
        #expect(driver.phase == row.after)
    }

    @Test(arguments: [Phase.head, .body])
    func tickAfterTheDeadlineStillRejects(_ phase: Phase) {
        var driver = MachineDriver.started(in: phase)
        #expect(driver.tick(at: Self.t0 + .seconds(500)) == .reject(408))
    }

    // MARK: Shutdown

    static let shutdownAt = t0 + .seconds(5)
    static let graceEnds = shutdownAt + .seconds(10)

    /// `deadline` is the one after the shutdown: the phase's own, capped by the grace period.
    @Test(arguments: [
        Row(.idle, .close(.idleAtShutdown), .closed),
        Row(.head, .close(.idleAtShutdown), .closed),
        Row(.waitingForBudget, .none, .waitingForBudget, deadline: t0 + .seconds(10)),
        Row(.body, .none, .body, deadline: t0 + .seconds(10)),
        Row(.responding, .none, .responding, deadline: graceEnds),
        Row(.streaming, .finishStream(0), .closing, deadline: graceEnds),
        Row(.closing, .none, .closing, deadline: graceEnds),
        Row(.lingering, .none, .lingering, deadline: t0 + .milliseconds(50)),
        Row(.closed, .none, .closed),
    ])
    func shutdown(_ row: Row) {
        var driver = MachineDriver.started(in: row.phase)
        #expect(driver.shutdown(at: Self.shutdownAt) == row.step)
        #expect(driver.phase == row.after)
        if row.after != .closed { #expect(driver.deadline == row.deadline) }
        #expect(driver.shutdown(at: Self.shutdownAt + 1) == .none)  // only once
    }

    @Test(arguments: phases)
    func graceEndsEveryConnection(_ phase: Phase) {
        var driver = MachineDriver.started(in: phase)
        _ = driver.shutdown(at: Self.shutdownAt)
        let isOpen = driver.phase != .closed
        #expect(driver.tick(at: Self.graceEnds) == (isOpen ? .close(.shutdownGraceOver) : .none))
        #expect(driver.phase == .closed)
    }

    // MARK: Events that do not belong to the phase

    /// An event from the loop that the phase does not expect (a late answer, grant or chunk).
    enum StrayEvent: CaseIterable, Sendable {
        case responseReady, bodyGranted, streamed, streamEnded

        /// The only phase in which the event acts.
        var phase: Phase {
            switch self {
            case .responseReady: .responding
            case .bodyGranted: .waitingForBudget
            case .streamed, .streamEnded: .streaming
            }
        }
    }

    static let strayPairs = phases.flatMap { phase in
        StrayEvent.allCases.filter { $0.phase != phase }.map { (phase, $0) }
    }

    @Test(arguments: strayPairs)
    func strayEventChangesNothing(_ phase: Phase, _ event: StrayEvent) {
        var driver = MachineDriver.started(in: phase)
        let before = (driver.pending, driver.deadline, driver.unconsumedInputCount)
        let now = Self.t0 + .seconds(1)
        let step =
            switch event {
            case .responseReady: driver.respond(.bytes("late"), at: now)
            case .bodyGranted: driver.bodyGranted(at: now)
            case .streamed: driver.streamed("late", at: now)
            case .streamEnded: driver.streamEnded(at: now)
            }
        #expect(step == .none)
        #expect(driver.phase == phase)
        #expect(driver.pending == before.0)
        #expect(driver.deadline == before.1)
        #expect(driver.unconsumedInputCount == before.2)
    }

    // MARK: Flushing

    /// A driver in `phase` with output pending: answers, a 100 Continue, a chunk.
    static func withPendingOutput(in phase: Phase) -> MachineDriver {
        var driver = MachineDriver(now: t0)
        switch phase {
        case .idle:
            _ = driver.received(Wire.get("/"), at: t0)
            _ = driver.respond(.bytes("a"), at: t0)
        case .head:
            _ = driver.received(Wire.get("/") + "GET /next HTTP/1.1\r\n", at: t0)
            _ = driver.respond(.bytes("a"), at: t0)
        case .body:
            _ = driver.received(Wire.postHead("/upload", length: 5, "Expect: 100-continue"), at: t0)
            _ = driver.bodyGranted(at: t0)
        case .responding:
            _ = driver.received(Wire.get("/") + Wire.get("/next"), at: t0)
            _ = driver.respond(.bytes("a"), at: t0)
            _ = driver.flush(at: t0, accepting: 0)  // dispatches /next; "a" still unsent
        case .streaming:
            driver = MachineDriver.started(in: .streaming)
            _ = driver.streamed("data", at: t0)
        default:
            driver = MachineDriver.started(in: phase)
        }
        return driver
    }

    @Test(arguments: [
        Row(.idle, .none, .idle),
        Row(.head, .none, .head),
        Row(.body, .none, .body),
        Row(.responding, .none, .responding),
        Row(.streaming, .none, .streaming),
        Row(.closing, .halfClose, .lingering),
    ])
    func flushingEverything(_ row: Row) {
        var driver = Self.withPendingOutput(in: row.phase)
        let (written, pending) = (driver.written, driver.pending)
        #expect(!pending.isEmpty)
        #expect(driver.flush(at: Self.t0 + .seconds(1)) == row.step)
        #expect(driver.phase == row.after)
        #expect(driver.written == written + pending)
        #expect(driver.pendingOutputCount == 0)
    }

    @Test(arguments: [Phase.idle, .head, .body, .responding, .streaming, .closing])
    func flushingPartOfTheOutput(_ phase: Phase) {
        var driver = Self.withPendingOutput(in: phase)
        let (written, pending) = (driver.wire, Array(driver.pending.utf8))
        let sentAt = Self.t0 + .seconds(1)
        #expect(driver.flush(at: sentAt, accepting: 3) == .none)
        #expect(driver.phase == phase)
        #expect(driver.wire == written + pending.prefix(3))
        #expect(Array(driver.pending.utf8) == Array(pending.dropFirst(3)))
        #expect(driver.deadline == sentAt + .seconds(30))  // the write timeout, from this progress
    }
}

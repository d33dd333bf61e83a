import Basics
import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@Suite struct BlockingThreadPoolTests {
    @Test func returnsResults() async throws {
        let pool = BlockingThreadPool(name: "results", threadCount: 2, queueLimit: 8)
        defer { pool.shutdown() }
        let value = try await pool.run { 6 * 7 }
        #expect(value == 42)
        let text = try await pool.run { String(repeating: "x", count: 3) }
        #expect(text == "xxx")
    }

    @Test func itsThreadsRunAtTheGivenNicenessAndTheCallerKeepsItsOwn() async throws {
        let pool = BlockingThreadPool(name: "nice", threadCount: 1, queueLimit: 4, scheduling: .niceness(10))
        defer { pool.shutdown() }
        let callerBefore = Self.niceness()
        let worker = try await pool.run { (Self.niceness(), sched_getscheduler(0)) }
        #expect(worker.0 == max(callerBefore, 10))
        #expect(worker.1 == SCHED_OTHER)
        #expect(Self.niceness() == callerBefore)
    }

    @Test func normalThreadsKeepTheCallersClassAndNiceness() async throws {
        let pool = BlockingThreadPool(name: "normal", threadCount: 1, queueLimit: 4, scheduling: .normal)
        defer { pool.shutdown() }
        let worker = try await pool.run { (Self.niceness(), sched_getscheduler(0)) }
        #expect(worker.0 == Self.niceness())
        #expect(worker.1 == SCHED_OTHER)
    }

    /// The calling thread's nice value.
    private static func niceness() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    @Test func runsAtMostThreadCountJobsAtOnce() async throws {
        let pool = BlockingThreadPool(name: "bounded", threadCount: 2, queueLimit: 16)
        defer { pool.shutdown() }
        let tracker = ConcurrencyTracker()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await pool.run {
                        tracker.enter()
                        usleep(50_000)
                        tracker.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect((1...2).contains(tracker.maximum))
    }

    @Test func refusesJobsBeyondTheQueueLimit() async throws {
        let pool = BlockingThreadPool(name: "limited", threadCount: 2, queueLimit: 3)
        defer { pool.shutdown() }
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let blocker: @Sendable () -> Int = {
            startedSignal.yield()
            release.wait()
            return 1
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            // Occupy both workers, and wait until both jobs are running.
            for _ in 0..<2 { group.addTask { try await pool.run(blocker) } }
            var startedJobs = started.makeAsyncIterator()
            for _ in 0..<2 { await startedJobs.next() }
            // Fill the queue.
            for _ in 0..<3 { group.addTask { try await pool.run(blocker) } }
            while pool.queuedJobCount < 3 { await Task.yield() }

            await #expect(throws: BlockingThreadPool.Overloaded.queueFull) {
                try await pool.run { 0 }
            }

            for _ in 0..<5 { release.signal() }
            var total = 0
            for try await value in group { total += value }
            #expect(total == 5)
        }
        #expect(try await pool.run { 7 } == 7)
    }

    /// A flood from one owner holds at most its share; everyone else's jobs still get in.
    @Test func anOwnerHoldsAtMostItsShareAndOthersStillGetIn() async throws {
        let pool = BlockingThreadPool(name: "shares", threadCount: 1, queueLimit: 8, perOwnerLimit: 2)
        defer { pool.shutdown() }
        let release = DispatchSemaphore(value: 0)
        let blocker: @Sendable () -> Int = {
            release.wait()
            return 1
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 { group.addTask { try await pool.run(for: "flood", blocker) } }
            #expect(try await eventually { pool.jobCount(of: "flood") == 2 })

            await #expect(throws: BlockingThreadPool.Overloaded.ownerAtLimit) {
                try await pool.run(for: "flood") { 0 }
            }
            // Others queue behind the flood's two, whoever they are.
            group.addTask { try await pool.run(for: "neighbour", blocker) }
            for _ in 0..<3 { group.addTask { try await pool.run(blocker) } }
            #expect(try await eventually { pool.queuedJobCount == 5 })
            #expect(pool.jobCount(of: "neighbour") == 1)

            for _ in 0..<6 { release.signal() }
            var total = 0
            for try await value in group { total += value }
            #expect(total == 6)
        }
        #expect(pool.jobCount(of: "flood") == 0)
    }

    /// A job of two owners (a person and an address) counts against both, with a share each:
    /// refused when either is at its limit, whoever else is free; both counts drop when it ends.
    @Test func aJobOfSeveralOwnersIsRefusedWhenAnyOfThemIsAtItsShare() async throws {
        let pool = BlockingThreadPool(name: "shares", threadCount: 4, queueLimit: 8)
        let release = DispatchSemaphore(value: 0)
        let blocker: @Sendable () -> Int = {
            release.wait()
            return 1
        }
        func shares(_ person: String, _ address: String) -> [BlockingThreadPool.Share] {
            [.init(owner: "person:\(person)", limit: 1), .init(owner: "client:\(address)", limit: 2)]
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask { try await pool.run(for: shares("ada", "192.0.2.1"), blocker) }
            #expect(try await eventually { pool.jobCount(of: "person:ada") == 1 })
            await #expect(throws: BlockingThreadPool.Overloaded.ownerAtLimit, "Ada's share, from another address too") {
                try await pool.run(for: shares("ada", "192.0.2.9")) { 0 }
            }
            group.addTask { try await pool.run(for: shares("bob", "192.0.2.1"), blocker) }
            #expect(try await eventually { pool.jobCount(of: "client:192.0.2.1") == 2 })
            await #expect(throws: BlockingThreadPool.Overloaded.ownerAtLimit, "the address's share, for a third person") {
                try await pool.run(for: shares("carol", "192.0.2.1")) { 0 }
            }
            #expect(pool.jobCount(of: "person:carol") == 0, "a refused job counts for no one")
            #expect(try await pool.run(for: shares("carol", "192.0.2.2")) { 7 } == 7, "elsewhere, the pool is open")
            for _ in 0..<2 { release.signal() }
            for try await value in group { #expect(value == 1) }
        }
        #expect(pool.jobCount(of: "person:ada") == 0 && pool.jobCount(of: "client:192.0.2.1") == 0)
        #expect(try await pool.run(for: shares("ada", "192.0.2.1")) { 3 } == 3)
    }

    /// An owner's count drops before its caller resumes, so one job after another never meets
    /// the one before, even with a share of one.
    @Test func anOwnerRunningOneJobAfterAnotherIsNeverRefused() async throws {
        let pool = BlockingThreadPool(name: "sequential", threadCount: 2, queueLimit: 8, perOwnerLimit: 1)
        defer { pool.shutdown() }
        for index in 0..<200 { #expect(try await pool.run(for: "one") { index } == index) }
    }

    @Test func runsWorkOnItsOwnThreads() async throws {
        let pool = BlockingThreadPool(name: "own", threadCount: 1, queueLimit: 1)
        defer { pool.shutdown() }
        let callerThread = UInt(pthread_self())
        let (workerThread, workerName) = try await pool.run { (UInt(pthread_self()), Thread.current.name ?? "") }
        #expect(workerThread != callerThread)
        #expect(workerName == "own-0")
    }

    @Test func shortensThreadNamesToTheLinuxLimit() async throws {
        let pool = BlockingThreadPool(name: "password-hashing", threadCount: 1, queueLimit: 1)
        defer { pool.shutdown() }
        let workerName = try await pool.run { Thread.current.name ?? "" }
        #expect(workerName == "password-hash-0")
    }

    @Test func finishesQueuedJobsAndRefusesNewOnesAfterShutdown() async throws {
        let pool = BlockingThreadPool(name: "closing", threadCount: 1, queueLimit: 4)
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                try await pool.run {
                    startedSignal.yield()
                    release.wait()
                    return 1
                }
            }
            var startedJobs = started.makeAsyncIterator()
            await startedJobs.next()
            for _ in 0..<2 { group.addTask { try await pool.run { 1 } } }
            while pool.queuedJobCount < 2 { await Task.yield() }

            pool.shutdown()
            await #expect(throws: BlockingThreadPool.Overloaded.shutDown) {
                try await pool.run { 0 }
            }
            release.signal()
            var total = 0
            for try await value in group { total += value }
            #expect(total == 3)
        }
    }
}

/// Counts jobs running at once and remembers the most seen.
private final class ConcurrencyTracker: Sendable {
    private let counts = Mutex((running: 0, maximum: 0))

    var maximum: Int { counts.withLock { $0.maximum } }

    func enter() {
        counts.withLock {
            $0.running += 1
            $0.maximum = max($0.maximum, $0.running)
        }
    }

    func leave() {
        counts.withLock { $0.running -= 1 }
    }
}

import Dispatch
import Foundation
import Glibc
import Synchronization

/// A small, bounded set of dedicated OS threads for CPU-heavy blocking work, such as password
/// hashing, that must never run on an event loop or Swift's cooperative thread pool.
///
/// Threading: `threadCount` Foundation `Thread`s, named `<name>-<index>` (cut to 15 bytes), start in
/// `init` and loop taking jobs from a FIFO queue. The queue and the shut-down flag live in a
/// `Mutex`; a counting `DispatchSemaphore` counts jobs, plus one extra signal per worker once
/// ``shutdown()`` is called, so an idle worker sleeps in `wait()` without holding the lock and
/// wakes once per job. An awaiting caller is suspended on a checked continuation (holding no
/// thread) until a worker has run its closure and resumed it with the result.
///
/// Priority: each thread puts itself in the pool's ``SchedulingClass`` before its first job
/// (Linux schedules threads, not processes, so this leaves the rest of the process alone), so
/// that under CPU contention the event loops are scheduled before the pool: a busy hashing pool
/// slows sign-ins, not every other page.
///
/// Back-pressure: at most `queueLimit` jobs wait (running jobs do not count); one more is
/// refused at once with ``Overloaded`` rather than queued, which callers turn into a 503.
/// Cancelling the awaiting task does not stop a job that is queued or running.
///
/// Shares: a job may name its owners (a client address; a person and an address), each with
/// the most jobs it may have queued or running at once (`perOwnerLimit` for one named alone);
/// a job one of whose owners is at its limit is refused at once (``Overloaded/ownerAtLimit``,
/// a 429 or 503 for the caller). So a flood from one owner holds at most that many of the
/// pool's places, and everyone else's jobs still find the queue open. The counts drop before
/// the job's caller is resumed, so a caller that waits for each job before sending the next
/// never meets its own last one.
package final class BlockingThreadPool: Sendable {
    /// The pool refused a job without running it; callers answer 503 Service Unavailable.
    package enum Overloaded: Error, CustomStringConvertible, Equatable {
        /// `queueLimit` jobs were already waiting for a thread.
        case queueFull
        /// ``BlockingThreadPool/shutdown()`` has been called.
        case shutDown
        /// The job's owner already had `perOwnerLimit` jobs queued or running.
        case ownerAtLimit

        package var description: String {
            switch self {
            case .queueFull: "the blocking thread pool's queue is full"
            case .shutDown: "the blocking thread pool is shut down"
            case .ownerAtLimit: "the job's owner already has as many jobs in the blocking thread pool as it may"
            }
        }
    }

    /// How the kernel schedules the pool's threads against the process's other threads
    /// (sched(7)); each worker applies it to itself when it starts. Best effort: a thread the
    /// kernel refuses the change (EPERM) still runs jobs, in the class it inherited.
    package enum SchedulingClass: Sendable, Equatable {
        /// `SCHED_OTHER` at the nice value inherited from the thread that made the pool.
        case normal
        /// `SCHED_OTHER` at this nice value (1...19; `setpriority(2)`, per thread on Linux). Each
        /// step is about 1.25 times less weight, so nice 10 gets about a tenth of the CPU a nice-0
        /// thread gets when both want it; but it is still time-shared fairly, so an event loop
        /// that wakes may wait for part of a time slice while a hash runs on its CPU.
        case niceness(Int32)
    }

    private let workers: Workers
    /// The share of an owner named alone (``run(for:_:)`` with one owner).
    private let perOwnerLimit: Int

    /// Starts `threadCount` worker threads that accept up to `queueLimit` waiting jobs, at most
    /// `perOwnerLimit` queued or running per owner, and run under `scheduling`.
    package init(
        name: String, threadCount: Int, queueLimit: Int, perOwnerLimit: Int = .max, scheduling: SchedulingClass = .normal
    ) {
        precondition(threadCount > 0, "BlockingThreadPool needs at least one thread")
        precondition(queueLimit >= 0, "BlockingThreadPool needs a non-negative queue limit")
        precondition(perOwnerLimit > 0, "BlockingThreadPool needs a positive per-owner limit")
        workers = Workers(threadCount: threadCount, queueLimit: queueLimit)
        self.perOwnerLimit = perOwnerLimit
        for index in 0..<threadCount {
            let threadName = Self.threadName(name, index: index)
            // Foundation on Linux ignores a name set before `start()`, and applies one set on the
            // running thread only once `start()` has stored the thread's pthread handle (which it
            // does after the thread may already be running); `started` orders the two.
            let started = DispatchSemaphore(value: 0)
            let thread = Thread { [workers] in
                started.wait()
                Thread.current.name = threadName
                scheduling.applyToCurrentThread()
                workers.runJobs()
            }
            thread.start()
            started.signal()
        }
    }

    /// Shuts the pool down when the last reference goes, so forgotten pools do not leak threads.
    deinit {
        shutdown()
    }

    /// Runs `work` on one of the pool's threads, as a job of `owner` (nil: no one's, not
    /// limited), and returns its result.
    ///
    /// - Throws: ``Overloaded`` at once, without running `work`, when `owner` already has
    ///   `perOwnerLimit` jobs queued or running, `queueLimit` jobs are already waiting, or the
    ///   pool has been shut down.
    package func run<T: Sendable>(for owner: String? = nil, _ work: @escaping @Sendable () -> T) async throws(Overloaded) -> T {
        try await run(for: owner.map { [Share(owner: $0, limit: perOwnerLimit)] } ?? [], work)
    }

    /// One owner's claim on the pool: at most `limit` of its jobs queued or running at once.
    package struct Share: Sendable, Equatable {
        package let owner: String
        package let limit: Int

        package init(owner: String, limit: Int) {
            self.owner = owner
            self.limit = max(1, limit)
        }
    }

    /// Runs `work` on one of the pool's threads, as a job of every owner in `shares`, and
    /// returns its result.
    ///
    /// - Throws: ``Overloaded`` at once, without running `work`, when one of the owners already
    ///   has its limit of jobs queued or running, `queueLimit` jobs are already waiting, or the
    ///   pool has been shut down.
    package func run<T: Sendable>(for shares: [Share], _ work: @escaping @Sendable () -> T) async throws(Overloaded) -> T {
        let workers = self.workers
        let owners = shares.map(\.owner)
        let result: Result<T, Overloaded> = await withCheckedContinuation { continuation in
            let refusal = workers.enqueue(shares: shares) {
                let value = work()
                workers.finish(owners: owners)
                continuation.resume(returning: .success(value))
            }
            if let refusal { continuation.resume(returning: .failure(refusal)) }
        }
        return try result.get()
    }

    /// Stops accepting jobs; the workers finish every job already queued, then exit.
    ///
    /// Returns without waiting for them. Calling it again does nothing.
    package func shutdown() {
        workers.shutdown()
    }

    /// `<name>-<index>`, with `name` shortened so the whole fits Linux's 15-byte thread name
    /// limit (a longer name is silently not applied, leaving the creating thread's name).
    private static func threadName(_ name: String, index: Int) -> String {
        let suffix = "-\(index)"
        var prefix = Substring(name)
        while prefix.utf8.count + suffix.utf8.count > 15 {
            prefix = prefix.dropLast()
        }
        return prefix + suffix
    }

    /// How many jobs are waiting for a thread right now (not counting running ones); a
    /// snapshot for metrics and tests.
    package var queuedJobCount: Int {
        workers.queuedJobCount
    }

    /// How many jobs of `owner` are queued or running right now; a snapshot for tests.
    package func jobCount(of owner: String) -> Int {
        workers.jobCount(of: owner)
    }
}

extension BlockingThreadPool.SchedulingClass {
    /// Puts the calling thread, and only it, in this class; errors are ignored (best effort).
    fileprivate func applyToCurrentThread() {
        switch self {
        case .normal:
            break
        case .niceness(let niceness):
            // `who` 0 is the calling thread alone on Linux, where each thread has its own nice
            // value (setpriority(2), NOTES).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }
    }
}

/// The state the worker threads share with the pool; the threads hold this, not the pool, so
/// the pool's `deinit` can shut them down.
private final class Workers: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var queue: [Job] = []
        var head = 0
        var isShutDown = false
        /// Jobs queued or running per owner; owners with none are removed, so it holds at most
        /// `queueLimit + threadCount` entries per owner a job may name.
        var jobsByOwner: [String: Int] = [:]
        var waitingCount: Int { queue.count - head }
    }

    private let threadCount: Int
    private let queueLimit: Int
    private let state = Mutex(State())
    /// Signalled once per enqueued job, and once per worker at shutdown.
    private let signals = DispatchSemaphore(value: 0)

    init(threadCount: Int, queueLimit: Int) {
        self.threadCount = threadCount
        self.queueLimit = queueLimit
    }

    /// Adds `job` to the queue as one of each owner's in `shares`, or returns why it was
    /// refused. The job must call ``finish(owners:)`` once its work is done.
    func enqueue(shares: [BlockingThreadPool.Share], _ job: @escaping Job) -> BlockingThreadPool.Overloaded? {
        let refusal: BlockingThreadPool.Overloaded? = state.withLock { state in
            if state.isShutDown { return .shutDown }
            if shares.contains(where: { state.jobsByOwner[$0.owner, default: 0] >= $0.limit }) { return .ownerAtLimit }
            if state.waitingCount >= queueLimit { return .queueFull }
            state.queue.append(job)
            for share in shares { state.jobsByOwner[share.owner, default: 0] += 1 }
            return nil
        }
        if refusal == nil { signals.signal() }
        return refusal
    }

    /// One job of each of `owners` is done.
    func finish(owners: [String]) {
        guard !owners.isEmpty else { return }
        state.withLock { state in
            for owner in owners {
                guard let count = state.jobsByOwner[owner] else { continue }
                state.jobsByOwner[owner] = count > 1 ? count - 1 : nil
            }
        }
    }

    func jobCount(of owner: String) -> Int {
        state.withLock { $0.jobsByOwner[owner] ?? 0 }
    }

    func shutdown() {
        let wasShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        guard !wasShutDown else { return }
        for _ in 0..<threadCount {
            signals.signal()
        }
    }

    var queuedJobCount: Int {
        state.withLock { $0.waitingCount }
    }

    /// A worker thread's body: run jobs until shut down with an empty queue.
    ///
    /// Every signal is either a job's or an exit's, so each worker consumes exactly one signal
    /// per job it runs plus one to exit, however those interleave.
    func runJobs() {
        while true {
            signals.wait()
            let job: Job? = state.withLock { state in
                guard state.head < state.queue.count else { return nil }
                let job = state.queue[state.head]
                state.head += 1
                // Drop consumed slots once they are the majority, keeping dequeue O(1) amortized.
                if state.head * 2 >= state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            guard let job else { return }
            job()
        }
    }
}

import Synchronization

/// A thread-safe counter responders bump, so tests can wait for "the request has arrived".
final class Counter: Sendable {
    private let value = Mutex(0)

    func increment() { add(1) }

    func add(_ amount: Int) { value.withLock { $0 += amount } }

    var current: Int { value.withLock { $0 } }

    /// Waits (polling every 5 ms, at most `limit`: as long as a client waits for an answer, since
    /// under ThreadSanitizer at the start of the suite a task can wait seconds for a thread) until
    /// the count reaches `target`.
    func wait(until target: Int, limit: Duration = RawClient.patience) async throws {
        let deadline = ContinuousClock.now + limit
        while current < target, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

import Synchronization

/// Counts the tasks a server's connections own (responders, stream producers) so that the
/// server's ``HTTPServer/run()`` returns only after the last has ended: nothing the server
/// started outlives it, and whatever the application closes afterwards (its store) is closed
/// strictly after every request that used it.
///
/// `begin()` runs on a loop before the task is created, `end()` as the task's last act. The
/// count is an atomic, so a request pays two uncontended atomic operations; the mutex is taken
/// only when the count reaches zero or someone waits.
final class TaskTracker: Sendable {
    private let live = Atomic<Int>(0)
    private let waiters = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// A task is about to start.
    func begin() {
        live.add(1, ordering: .relaxed)
    }

    /// A task has ended (call last, after its work, also when cancelled).
    func end() {
        guard live.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        let waiting = waiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Tasks started and not yet ended.
    var count: Int { live.load(ordering: .acquiring) }

    /// Returns once no task is running (at once if none is).
    func waitUntilNoneRun() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isDone = waiters.withLock { waiters in
                // Checked under the lock `end()` takes after reaching zero: either that `end()`
                // sees this waiter, or this check sees its zero.
                if live.load(ordering: .acquiring) == 0 { return true }
                waiters.append(continuation)
                return false
            }
            if isDone { continuation.resume() }
        }
    }
}

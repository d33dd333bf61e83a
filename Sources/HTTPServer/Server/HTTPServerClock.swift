import Synchronization

/// Where the event loops read the time for their deadlines and logs: the monotonic clock, or,
/// in tests, a ``ManualServerClock`` that moves only when told. Each connection's state
/// machine takes the time as input, so with a manual clock a socket test proves a timeout
/// rule by advancing the clock instead of sleeping.
package enum HTTPServerClock: Sendable {
    case monotonic
    case manual(ManualServerClock)

    /// Nanoseconds on this clock.
    @inline(__always)
    func now() -> UInt64 {
        switch self {
        case .monotonic: Platform.monotonicNanoseconds()
        case .manual(let clock): clock.now
        }
    }
}

/// A clock for tests: it starts at an arbitrary instant and moves only by ``advance(by:)``,
/// which also wakes every loop of the server using it, so each checks its deadlines at once.
package final class ManualServerClock: Sendable {
    private struct State {
        var now: UInt64
        var inboxes: [LoopInbox] = []
    }

    private let state: Mutex<State>

    package init(start: UInt64 = 1_000_000_000_000) {
        state = Mutex(State(now: start))
    }

    /// The current instant in nanoseconds.
    package var now: UInt64 { state.withLock { $0.now } }

    /// Moves the time forward and returns once every loop of the server has read what its
    /// sockets hold and checked its deadlines at the new time (so what a timeout sends is
    /// already in the client's socket).
    package func advance(by duration: Duration) async {
        let inboxes = state.withLock { state in
            state.now &+= duration.nanoseconds
            return state.inboxes
        }
        await withTaskGroup(of: Void.self) { group in
            for inbox in inboxes {
                group.addTask {
                    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                        inbox.post(.wake(waiter))
                    }
                }
            }
        }
    }

    /// Moves the time forward without waiting for the loops (one may be held up on purpose).
    package func advanceWithoutWaiting(by duration: Duration) {
        let inboxes = state.withLock { state in
            state.now &+= duration.nanoseconds
            return state.inboxes
        }
        for inbox in inboxes { inbox.post(.wake(nil)) }
    }

    /// Returns once every loop has handled what its sockets hold at the current time.
    package func settle() async {
        await advance(by: .zero)
    }

    /// The loops to wake (called by the server when it starts).
    func attach(_ inboxes: [LoopInbox]) {
        state.withLock { $0.inboxes = inboxes }
    }
}

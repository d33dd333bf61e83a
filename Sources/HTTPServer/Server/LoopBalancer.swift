import Synchronization

/// Spreads accepted connections over the event loops: each new connection goes to the loop
/// with the fewest open connections, so one loop cannot end up with a whole burst (a single
/// wake-up of `EPOLLEXCLUSIVE` may accept many connections at once).
///
/// Sendable: the per-loop counts are behind a `Mutex`, touched once per accept and per close.
final class LoopBalancer: Sendable {
    private let counts: Mutex<[Int]>

    init(loopCount: Int) {
        counts = Mutex(Array(repeating: 0, count: loopCount))
    }

    /// The loop that should own a new connection (`preferred` on ties), counted there.
    func assign(preferring preferred: Int) -> Int {
        counts.withLock { counts in
            var best = preferred
            for index in counts.indices where counts[index] < counts[best] { best = index }
            counts[best] += 1
            return best
        }
    }

    /// A connection of `loop` has closed.
    func release(_ loop: Int) {
        counts.withLock { $0[loop] -= 1 }
    }

    /// `loop` will never serve (it failed to start): a count no live loop reaches keeps it from
    /// being chosen again.
    func retire(_ loop: Int) {
        counts.withLock { $0[loop] = Int.max / 2 }
    }
}

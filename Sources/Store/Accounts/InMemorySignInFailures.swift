package import Foundation
import Synchronization

/// Attempts and lockouts in this process's memory: right for SQLite, where one process owns the
/// data directory (``DataDirectoryLock``), so there is nothing to share; a restart forgets them.
/// One `Mutex` holds every namespace, so a reservation checks and counts in one step.
///
/// Bounded, and never at a live lock's expense (issue 29): each namespace keeps at most
/// `capacity` keys' attempts, in the order they were last tried (``RecencyList``), and a new key
/// past that evicts the least recently tried one in O(1), never sweeping the whole store under
/// the lock. Locks are kept apart, each until it ends: one is made only by the fifth failure
/// within a window, each failure a password check the hashing pool and the address limits pace,
/// so their number is bounded by that pace times their length (a minute); ended ones are
/// dropped from the front of a queue in the order they were made, which is the order they end.
/// Namespaces are never mixed, since each has its own window.
package final class InMemorySignInFailures: SignInFailureStorage {
    private struct Namespace {
        /// Each key's attempts within its window, least recently tried first.
        var attempts = RecencyList<[Date]>()
        /// Each locked key's end.
        var locks: [String: Date] = [:]
        /// Locks in the order they were made (and so end), for dropping ended ones; an entry
        /// whose key was locked again later or cleared is skipped when it comes up.
        var lockQueue: [(key: String, until: Date)] = []
        var lockQueueHead = 0

        /// Forgets the locks that ended by `date`, oldest first.
        mutating func dropLocks(endedBy date: Date) {
            while lockQueueHead < lockQueue.count, lockQueue[lockQueueHead].until <= date {
                let (key, until) = lockQueue[lockQueueHead]
                if locks[key] == until { locks[key] = nil }
                lockQueueHead += 1
            }
            if lockQueueHead > 64, lockQueueHead * 2 >= lockQueue.count {
                lockQueue.removeFirst(lockQueueHead)
                lockQueueHead = 0
            }
        }
    }

    private let namespaces = Mutex<[String: Namespace]>([:])
    private let capacity: Int

    package init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// How many keys of `namespace` it keeps attempts of now (locks apart).
    package func trackedCount(in namespace: String) -> Int {
        namespaces.withLock { $0[namespace]?.attempts.count ?? 0 }
    }

    /// How many keys of `namespace` are locked now, ended locks not yet dropped included.
    package func lockCount(in namespace: String) -> Int {
        namespaces.withLock { $0[namespace]?.locks.count ?? 0 }
    }

    package func reserveAttempts(
        _ count: Int, in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) -> AttemptReservation {
        let limit = max(1, limit)
        let count = min(max(1, count), limit)
        return namespaces.withLock { all in
            var space = all.removeValue(forKey: namespace) ?? Namespace()
            defer { all[namespace] = space }
            space.dropLocks(endedBy: date)
            if let lockedUntil = space.locks[key], lockedUntil > date { return .locked(until: lockedUntil) }
            let known = space.attempts.peek(key)
            if known == nil, space.attempts.count >= capacity { space.attempts.removeOldest() }
            var attempts = known ?? []
            attempts.removeAll { $0 <= windowStart }
            if attempts.count + count > limit {
                space.attempts.set(attempts, for: key)
                // Room for `count` comes when all but `limit - count` have left: the
                // (held + count - limit)th oldest is the last that must go.
                return .full(oldest: attempts.sorted()[attempts.count + count - limit - 1])
            }
            attempts.append(contentsOf: repeatElement(date, count: count))
            space.attempts.set(attempts, for: key)
            return .counted(attempts.count)
        }
    }

    /// One attempt, at once (``SignInFailureStorage/reserveAttempt(in:for:at:forgettingBefore:limit:)``).
    package func reserveAttempt(
        in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) -> AttemptReservation {
        reserveAttempts(1, in: namespace, for: key, at: date, forgettingBefore: windowStart, limit: limit)
    }

    /// One attempt back, at once.
    package func releaseAttempt(in namespace: String, for key: String, at date: Date) {
        releaseAttempts(1, in: namespace, for: key, at: date)
    }

    package func releaseAttempts(_ count: Int, in namespace: String, for key: String, at date: Date) {
        namespaces.withLock { all in
            // Nothing made then: the key is left as it was, not marked as tried just now.
            guard var attempts = all[namespace]?.attempts.peek(key), attempts.contains(date) else { return }
            var left = count
            while left > 0, let index = attempts.firstIndex(of: date) {
                attempts.remove(at: index)
                left -= 1
            }
            all[namespace]?.attempts.set(attempts, for: key)
        }
    }

    package func lock(in namespace: String, _ key: String, until date: Date) {
        namespaces.withLock { all in
            var space = all.removeValue(forKey: namespace) ?? Namespace()
            defer { all[namespace] = space }
            space.attempts.remove(key)
            space.locks[key] = date
            space.lockQueue.append((key, date))
        }
    }

    package func clearAttempts(in namespace: String, for key: String) {
        namespaces.withLock { all in
            all[namespace]?.attempts.remove(key)
            all[namespace]?.locks[key] = nil
        }
    }
}

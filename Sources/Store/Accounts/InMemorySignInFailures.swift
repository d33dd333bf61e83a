package import Foundation
import Synchronization

/// Attempts and lockouts in this process's memory: right for SQLite, where one process owns the
/// data directory (``DataDirectoryLock``), so there is nothing to share; a restart forgets them.
/// One `Mutex` holds every namespace, so a reservation checks and counts in one step.
///
/// Bounded by `capacity` keys per namespace: when one is full, entries that no longer lock or
/// count go first, then an arbitrary one, so guessing at many usernames (or coming from many
/// addresses) cannot grow it. Namespaces are never mixed in that sweep, since each has its own window.
package final class InMemorySignInFailures: SignInFailureStorage {
    private struct Entry {
        var attempts: [Date] = []
        var lockedUntil: Date?

        /// Whether it still matters at `now`: locked, or with an attempt after `windowStart`.
        func matters(at now: Date, windowStart: Date) -> Bool {
            if let lockedUntil, lockedUntil > now { return true }
            return attempts.contains { $0 > windowStart }
        }
    }

    /// Namespace, then key.
    private let entries = Mutex<[String: [String: Entry]]>([:])
    private let capacity: Int

    package init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// How many keys of `namespace` it tracks now.
    package func trackedCount(in namespace: String) -> Int {
        entries.withLock { $0[namespace]?.count ?? 0 }
    }

    package func reserveAttempt(
        in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) -> AttemptReservation {
        entries.withLock { all in
            var entries = all.removeValue(forKey: namespace) ?? [:]
            defer { all[namespace] = entries }
            if entries[key] == nil, entries.count >= capacity {
                entries = entries.filter { $0.value.matters(at: date, windowStart: windowStart) }
                if entries.count >= capacity { entries.remove(at: entries.startIndex) }
            }
            var entry = entries[key] ?? Entry()
            entry.attempts.removeAll { $0 <= windowStart }
            defer { entries[key] = entry }
            if let lockedUntil = entry.lockedUntil, lockedUntil > date { return .locked(until: lockedUntil) }
            if entry.attempts.count >= max(1, limit), let oldest = entry.attempts.min() { return .full(oldest: oldest) }
            entry.attempts.append(date)
            return .counted(entry.attempts.count)
        }
    }

    package func releaseAttempt(in namespace: String, for key: String, at date: Date) {
        entries.withLock { all in
            guard let index = all[namespace]?[key]?.attempts.firstIndex(of: date) else { return }
            all[namespace]?[key]?.attempts.remove(at: index)
        }
    }

    package func lock(in namespace: String, _ key: String, until date: Date) {
        entries.withLock { all in
            all[namespace, default: [:]][key] = Entry(attempts: [], lockedUntil: date)
        }
    }

    package func clearAttempts(in namespace: String, for key: String) {
        _ = entries.withLock { $0[namespace]?.removeValue(forKey: key) }
    }
}

package import Foundation
import Store
import Synchronization

/// Sign-in failures in this process's memory: right for SQLite, where one process owns the data
/// directory (``DataDirectoryLock``), so there is nothing to share; a restart forgets them.
///
/// Bounded by `capacity` usernames: when full, entries that no longer lock or count go first,
/// then an arbitrary one, so guessing at many usernames cannot grow it.
package final class InMemorySignInFailures: SignInFailureStorage {
    private struct Entry {
        var failures: [Date] = []
        var lockedUntil: Date?

        /// Whether it still matters at `now`: locked, or with a failure after `windowStart`.
        func matters(at now: Date, windowStart: Date) -> Bool {
            if let lockedUntil, lockedUntil > now { return true }
            return failures.last.map { $0 > windowStart } ?? false
        }
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    package init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// How many usernames it tracks now.
    package var trackedCount: Int { entries.withLock { $0.count } }

    package func recordFailure(for username: String, at date: Date, forgettingBefore windowStart: Date) -> Int {
        entries.withLock { entries in
            if entries[username] == nil, entries.count >= capacity {
                entries = entries.filter { $0.value.matters(at: date, windowStart: windowStart) }
                if entries.count >= capacity { entries.remove(at: entries.startIndex) }
            }
            var entry = entries[username] ?? Entry()
            entry.failures = entry.failures.filter { $0 > windowStart } + [date]
            entries[username] = entry
            return entry.failures.count
        }
    }

    package func lock(_ username: String, until date: Date) {
        entries.withLock { entries in
            entries[username, default: Entry()].failures = []
            entries[username]?.lockedUntil = date
        }
    }

    package func lockEnd(for username: String) -> Date? {
        entries.withLock { $0[username]?.lockedUntil }
    }

    package func clearFailures(for username: String) {
        _ = entries.withLock { $0.removeValue(forKey: username) }
    }
}

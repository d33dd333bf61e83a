package import Foundation
import Synchronization

/// Limits guessing: after ``maximumFailures`` failed sign-ins for one username within
/// ``window``, every try for that username is refused for ``lockout`` (SPEC.md: 5 in a minute,
/// then 429 for a minute, even with the right password).
///
/// In memory, per process; bounded by `capacity` usernames: when full, entries that no longer
/// lock or count go first, then an arbitrary one.
package final class SignInThrottle: Sendable {
    package let maximumFailures: Int
    package let window: TimeInterval
    package let lockout: TimeInterval
    private let capacity: Int

    private struct Entry {
        var failures: [Date] = []
        var lockedUntil: Date?

        /// Whether it still matters at `now`: locked, or with a failure inside the window.
        func matters(at now: Date, window: TimeInterval) -> Bool {
            if let lockedUntil, lockedUntil > now { return true }
            return failures.last.map { now.timeIntervalSince($0) < window } ?? false
        }
    }

    private let entries = Mutex<[String: Entry]>([:])

    package init(maximumFailures: Int = 5, window: TimeInterval = 60, lockout: TimeInterval = 60, capacity: Int = 100_000) {
        self.maximumFailures = maximumFailures
        self.window = window
        self.lockout = lockout
        self.capacity = capacity
    }

    /// How many usernames it tracks now.
    package var trackedCount: Int { entries.withLock { $0.count } }

    /// Whether tries for `username` (as typed; compared lower-cased) are refused at `now`.
    package func isLocked(_ username: String, now: Date) -> Bool {
        let key = Self.key(username)
        return entries.withLock { entries in
            guard let until = entries[key]?.lockedUntil else { return false }
            if until > now { return true }
            entries[key] = nil
            return false
        }
    }

    /// Counts a failed try; the one that reaches the limit starts the lockout.
    package func recordFailure(_ username: String, now: Date) {
        let key = Self.key(username)
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= capacity {
                entries = entries.filter { $0.value.matters(at: now, window: window) }
                if entries.count >= capacity { entries.remove(at: entries.startIndex) }
            }
            var entry = entries[key] ?? Entry()
            entry.failures = entry.failures.filter { now.timeIntervalSince($0) < window } + [now]
            if entry.failures.count >= maximumFailures {
                entry.lockedUntil = now.addingTimeInterval(lockout)
                entry.failures = []
            }
            entries[key] = entry
        }
    }

    /// Forgets the failures of `username` after a successful sign-in.
    package func recordSuccess(_ username: String) {
        let key = Self.key(username)
        entries.withLock { $0[key] = nil }
    }

    private static func key(_ username: String) -> String {
        String(username.lowercased().prefix(64))
    }
}

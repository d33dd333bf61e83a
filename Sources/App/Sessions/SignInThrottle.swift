package import Foundation
package import Store

/// Limits guessing: after ``maximumFailures`` failed sign-ins for one username within
/// ``window``, every try for that username is refused for ``lockout`` (SPEC.md: 5 in a minute,
/// then 429 for a minute, even with the right password).
///
/// The rules live here; the counts live in `storage`: in memory for one process
/// (``InMemorySignInFailures``), in the database when instances share one
/// (``PostgresAccountStorage``), so failures spread over instances add up. Usernames are counted
/// as typed, lower-cased, first 64 characters.
package struct SignInThrottle: Sendable {
    package let maximumFailures: Int
    package let window: TimeInterval
    package let lockout: TimeInterval
    private let storage: any SignInFailureStorage

    package init(
        storage: any SignInFailureStorage = InMemorySignInFailures(), maximumFailures: Int = 5, window: TimeInterval = 60,
        lockout: TimeInterval = 60
    ) {
        self.storage = storage
        self.maximumFailures = maximumFailures
        self.window = window
        self.lockout = lockout
    }

    /// Whether tries for `username` (as typed; compared lower-cased) are refused at `now`.
    package func isLocked(_ username: String, now: Date) async throws(StoreError) -> Bool {
        guard let end = try await storage.lockEnd(for: Self.key(username)) else { return false }
        return end > now
    }

    /// Counts a failed try; the one that reaches the limit starts the lockout.
    package func recordFailure(_ username: String, now: Date) async throws(StoreError) {
        let key = Self.key(username)
        let count = try await storage.recordFailure(for: key, at: now, forgettingBefore: now.addingTimeInterval(-window))
        if count >= maximumFailures { try await storage.lock(key, until: now.addingTimeInterval(lockout)) }
    }

    /// Forgets the failures of `username` after a successful sign-in.
    package func recordSuccess(_ username: String) async throws(StoreError) {
        try await storage.clearFailures(for: Self.key(username))
    }

    private static func key(_ username: String) -> String {
        String(username.lowercased().prefix(64))
    }
}

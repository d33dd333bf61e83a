package import Foundation
package import Store

/// Limits guessing at one username (SPEC.md: after 5 failures within a minute, every try for
/// that username answers 429 for a minute, even with the right password).
///
/// Each try is counted before its password is checked (``reserve(_:now:)``, an
/// ``AttemptLimit`` of ``maximumFailures`` per ``window``), so however many arrive at once, and
/// on however many instances, at most ``maximumFailures`` checks for one username run within a
/// window; the others are refused unchecked. The try that fails as the ``maximumFailures``-th
/// locks the username for ``lockout``; a success forgets its count. Usernames are counted as
/// typed, lower-cased, first 64 characters.
///
/// The counts live in `storage`: in memory for one process (``InMemorySignInFailures``), in the
/// database when instances share one (``PostgresAccountStorage``), so tries spread over
/// instances add up.
package struct SignInThrottle: Sendable {
    /// The storage namespace of its counts.
    package static let namespace = "username"

    package let maximumFailures: Int
    package let window: TimeInterval
    package let lockout: TimeInterval
    private let attempts: AttemptLimit

    package init(
        storage: any SignInFailureStorage = InMemorySignInFailures(), maximumFailures: Int = 5, window: TimeInterval = 60,
        lockout: TimeInterval = 60
    ) {
        attempts = AttemptLimit(namespace: Self.namespace, limit: maximumFailures, window: window, storage: storage)
        self.maximumFailures = attempts.limit
        self.window = window
        self.lockout = lockout
    }

    /// Counts a try for `username` (as typed) at `now` before its password is checked; refused
    /// when the username is locked, or ``maximumFailures`` tries are already under way or done
    /// within the window.
    package func reserve(_ username: String, now: Date) async throws(StoreError) -> AttemptLimit.Decision {
        try await attempts.reserve(Self.key(username), now: now)
    }

    /// The password of `attempt` was wrong: it stays counted, and the one that reached the limit
    /// locks the username for ``lockout`` from `now`.
    package func recordFailure(_ attempt: AttemptLimit.Attempt, now: Date) async throws(StoreError) {
        guard attempt.number >= maximumFailures else { return }
        try await attempts.lock(attempt.key, until: now.addingTimeInterval(lockout))
    }

    /// The password of `attempt` was right: its username's tries and lock are forgotten.
    package func recordSuccess(_ attempt: AttemptLimit.Attempt) async throws(StoreError) {
        try await attempts.clear(attempt.key)
    }

    /// The password of `attempt` was never checked (the hashing pool refused it): it does not count.
    package func release(_ attempt: AttemptLimit.Attempt) async throws(StoreError) {
        try await attempts.release(attempt)
    }

    private static func key(_ username: String) -> String {
        String(username.lowercased().prefix(64))
    }
}

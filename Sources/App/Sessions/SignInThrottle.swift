package import Foundation
package import Store

/// Limits guessing at one username (SPEC.md: after 5 failures within a minute, every try for
/// that username answers 429 for a minute, even with the right password), or, by its ``Kind``,
/// at one known browser's sign-ins or at one signed-in person's own password.
///
/// Each try is counted before its password is checked (``reserve(_:now:)``, an
/// ``AttemptLimit`` of ``maximumFailures`` per ``window``), so however many arrive at once, and
/// on however many instances, at most ``maximumFailures`` checks for one username run within a
/// window; the others are refused unchecked. The try that fails as the ``maximumFailures``-th
/// locks the key for ``lockout``; a success forgets its count. Usernames are counted as typed,
/// lower-cased, first 64 characters; the other kinds' keys are the app's own (a nonce, an id).
///
/// The counts live in `storage`: in memory for one process (``InMemorySignInFailures``), in the
/// database when instances share one (``PostgresAccountStorage``), so tries spread over
/// instances add up.
package struct SignInThrottle: Sendable {
    /// Whose tries it counts; the raw value is its storage namespace, apart from every other's.
    package enum Kind: String, Sendable {
        /// Sign-ins for a username, from anywhere but a browser known to its account: the lock
        /// that strangers' failures set.
        case username
        /// Sign-ins from one browser known to the account (``KnownDeviceCookie``), by its nonce:
        /// only that browser's own failures count, so no stranger can lock it out.
        case knownDevice = "device"
        /// A signed-in person's own password checks (changing it, deleting the account), by
        /// account id: never refused because others guessed at the username.
        case ownPassword = "own"
    }

    /// The storage namespace of the username's counts.
    package static let namespace = Kind.username.rawValue

    package let kind: Kind
    package let maximumFailures: Int
    package let window: TimeInterval
    package let lockout: TimeInterval
    private let storage: any SignInFailureStorage
    private let attempts: AttemptLimit

    package init(
        storage: any SignInFailureStorage = InMemorySignInFailures(), kind: Kind = .username, maximumFailures: Int = 5,
        window: TimeInterval = 60, lockout: TimeInterval = 60
    ) {
        attempts = AttemptLimit(namespace: kind.rawValue, limit: maximumFailures, window: window, storage: storage)
        self.kind = kind
        self.storage = storage
        self.maximumFailures = attempts.limit
        self.window = window
        self.lockout = lockout
    }

    /// A throttle of `kind` with the same limits, counting in the same storage.
    package func sharing(_ kind: Kind) -> SignInThrottle {
        SignInThrottle(storage: storage, kind: kind, maximumFailures: maximumFailures, window: window, lockout: lockout)
    }

    /// Counts a try for `key` (a username as typed, a device's nonce, an account's id) at `now`
    /// before its password is checked; refused when the key is locked, or ``maximumFailures``
    /// tries are already under way or done within the window.
    package func reserve(_ key: String, now: Date) async throws(StoreError) -> AttemptLimit.Decision {
        try await attempts.reserve(self.key(key), now: now)
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

    private func key(_ typed: String) -> String {
        kind == .username ? String(typed.lowercased().prefix(64)) : String(typed.prefix(64))
    }
}

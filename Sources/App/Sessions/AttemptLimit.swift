package import Foundation
package import Store

/// At most ``limit`` attempts per key within any ``window``, each counted *before* the work it
/// stands for (a password check) starts: whatever the concurrency, and however many instances
/// share the ``SignInFailureStorage``, no more than ``limit`` attempts of one key are ever under
/// way or done within a window. An attempt whose work never ran, or that should not count, is
/// handed back with ``release(_:)``.
///
/// The rule lives here; the counts live in `storage`, under ``namespace``, apart from every
/// other limit's.
package struct AttemptLimit: Sendable {
    /// One counted attempt, of one or more counts: what it takes to release it or to lock its key.
    package struct Attempt: Sendable, Equatable {
        package let key: String
        package let date: Date
        /// How many counts its key held in the window with this one's (1 is the first).
        package let number: Int
        /// How many counts it took (``reserve(_:weight:now:)``).
        package var weight = 1
    }

    /// Whether an attempt may go ahead.
    package enum Decision: Sendable, Equatable {
        case allowed(Attempt)
        /// Refused, uncounted; the next attempt could count in this many whole seconds (at least 1).
        case refused(retryAfter: Int)
    }

    /// Where its counts live in the storage: a word without `:`.
    package let namespace: String
    package let limit: Int
    package let window: TimeInterval
    private let storage: any SignInFailureStorage

    package init(namespace: String, limit: Int, window: TimeInterval, storage: any SignInFailureStorage) {
        precondition(!namespace.contains(":"), "an attempt namespace holds no ':'")
        self.namespace = namespace
        self.limit = max(1, limit)
        self.window = window
        self.storage = storage
    }

    /// Counts an attempt for `key` at `now` as `weight` attempts, all or none, unless the key is
    /// locked or they would take it past ``limit`` within the window. An attempt heavier than the
    /// whole limit counts as the whole limit (else it could never go ahead).
    package func reserve(_ key: String, weight: Int = 1, now: Date) async throws(StoreError) -> Decision {
        let weight = min(max(1, weight), limit)
        let reservation = try await storage.reserveAttempts(
            weight, in: namespace, for: key, at: now, forgettingBefore: now.addingTimeInterval(-window), limit: limit)
        switch reservation {
        case .counted(let number): return .allowed(Attempt(key: key, date: now, number: number, weight: weight))
        case .locked(let end): return .refused(retryAfter: Self.seconds(from: now, to: end))
        case .full(let oldest): return .refused(retryAfter: Self.seconds(from: now, to: oldest.addingTimeInterval(window)))
        }
    }

    /// Takes `attempt` back, all its weight: it no longer counts towards the limit.
    package func release(_ attempt: Attempt) async throws(StoreError) {
        try await storage.releaseAttempts(attempt.weight, in: namespace, for: attempt.key, at: attempt.date)
    }

    /// Refuses every attempt for `key` until `date`, and forgets its attempts.
    package func lock(_ key: String, until date: Date) async throws(StoreError) {
        try await storage.lock(in: namespace, key, until: date)
    }

    /// Forgets the attempts and any lock of `key`.
    package func clear(_ key: String) async throws(StoreError) {
        try await storage.clearAttempts(in: namespace, for: key)
    }

    /// Whole seconds from `start` to `end`, rounded up, at least 1 (a `Retry-After` value).
    private static func seconds(from start: Date, to end: Date) -> Int {
        let interval = end.timeIntervalSince(start)
        guard interval > 1 else { return 1 }
        return Int(min(interval.rounded(.up), Double(Int32.max)))
    }
}

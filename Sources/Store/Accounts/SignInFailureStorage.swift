package import Foundation

/// Attempts and lockouts per key, for the app's attempt limits: the sign-in throttle (SPEC.md: 5
/// failures for one username within a minute lock it for a minute) and the per-client-address
/// limits on sign-ins and sign-ups ("Hostile clients"). The limits own the rules; storage counts,
/// and does so atomically, so instances sharing one storage share every limit.
///
/// Keys live in namespaces (`username`, `sign-in-address`, …: names without `:`), each with a
/// window of its own, so what one limit forgets never touches another's counts. An attempt is
/// counted *before* the work it stands for (a password check) starts, by ``reserveAttempt(in:for:at:forgettingBefore:limit:)``:
/// whatever the concurrency, and across instances, no more than `limit` attempts are ever in a
/// window at once.
package protocol SignInFailureStorage: Sendable {
    /// Atomically forgets the attempts of `key` from `windowStart` or earlier and, unless `key`
    /// is locked at `date` or `count` more would take it past `limit` attempts, counts `count`
    /// more at `date`, all or none (a heavy write counts several: ``AttemptLimit``). `count` is
    /// at least 1 and at most `limit`. Concurrent calls (from any instance) each see the
    /// others' attempts.
    func reserveAttempts(
        _ count: Int, in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) async throws(StoreError) -> AttemptReservation
    /// Takes back `count` attempts of `key` made at `date` (the work they stood for never ran,
    /// or does not count); as many as there are, when there are fewer.
    func releaseAttempts(_ count: Int, in namespace: String, for key: String, at date: Date) async throws(StoreError)
    /// Refuses `key` until `date` and forgets its attempts.
    func lock(in namespace: String, _ key: String, until date: Date) async throws(StoreError)
    /// Forgets the attempts and any lock of `key` (after a successful sign-in).
    func clearAttempts(in namespace: String, for key: String) async throws(StoreError)
}

extension SignInFailureStorage {
    /// Counts one attempt (``reserveAttempts(_:in:for:at:forgettingBefore:limit:)``).
    package func reserveAttempt(
        in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) async throws(StoreError) -> AttemptReservation {
        try await reserveAttempts(1, in: namespace, for: key, at: date, forgettingBefore: windowStart, limit: limit)
    }

    /// Takes back one attempt made at `date` (``releaseAttempts(_:in:for:at:)``).
    package func releaseAttempt(in namespace: String, for key: String, at date: Date) async throws(StoreError) {
        try await releaseAttempts(1, in: namespace, for: key, at: date)
    }
}

/// What ``SignInFailureStorage/reserveAttempts(_:in:for:at:forgettingBefore:limit:)`` did.
package enum AttemptReservation: Sendable, Equatable {
    /// Counted: the key now holds this many attempts in the window, this one included.
    case counted(Int)
    /// Not counted: the key is locked until then.
    case locked(until: Date)
    /// Not counted: the key holds too many attempts in the window for these to fit; they would
    /// once the attempt made at `oldest` leaves it (for one attempt, the oldest; for `count`,
    /// the one whose leaving makes room for all of them).
    case full(oldest: Date)
}

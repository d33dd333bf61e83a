package import Foundation

/// Failed sign-ins and lockouts per username, for the sign-in throttle (SPEC.md: 5 failures within
/// a minute lock a username for a minute). The throttle owns the rules; storage counts, and does
/// so atomically, so instances sharing one storage share the limit: failures spread over them
/// add up. Usernames arrive already normalised by the throttle.
package protocol SignInFailureStorage: Sendable {
    /// Adds a failure for `username` at `date`, forgets its failures from `windowStart` or
    /// earlier, and returns how many remain, this one included. Concurrent calls (from any
    /// instance) each count the others.
    func recordFailure(for username: String, at date: Date, forgettingBefore windowStart: Date) async throws(StoreError) -> Int
    /// Refuses `username` until `date` and forgets its failures.
    func lock(_ username: String, until date: Date) async throws(StoreError)
    /// When the latest lock on `username` ends (possibly in the past); nil when there is none.
    func lockEnd(for username: String) async throws(StoreError) -> Date?
    /// Forgets the failures and any lock of `username` (after a successful sign-in).
    func clearFailures(for username: String) async throws(StoreError)
}

import App
import Foundation
import Store
import StoreBackend
import TestSupport
import Testing

/// Five tries in a minute for one username, counted before the password is checked; the fifth
/// failure locks it for a minute. Counted in memory (SQLite) or in PostgreSQL.
@Suite struct SignInThrottleTests {
    let clock = TestClock()

    @Test(arguments: AccountBackend.configured)
    func theFifthFailureWithinAMinuteLocksForAMinute(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            try await fail("Ada", times: 4, every: 10, on: throttle)
            let fifth = try await allowed(throttle.reserve("ADA", now: clock.now))
            #expect(fifth.number == 5)
            try await throttle.recordFailure(fifth, now: clock.now)
            #expect(try await throttle.reserve("ada", now: clock.now) == .refused(retryAfter: 60))
            #expect(try await isAllowed(throttle.reserve("bob", now: clock.now)))
            clock.advance(by: 59)
            #expect(try await throttle.reserve("ada", now: clock.now) == .refused(retryAfter: 1))
            clock.advance(by: 2)
            #expect(try await allowed(throttle.reserve("ada", now: clock.now)).number == 1, "the lock forgot the tries")
        }
    }

    @Test(arguments: AccountBackend.configured)
    func triesOlderThanAMinuteDoNotCount(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            try await fail("ada", times: 10, every: 16, on: throttle)
            #expect(try await allowed(throttle.reserve("ada", now: clock.now)).number == 4)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aSuccessForgetsTheTries(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            try await fail("ada", times: 4, every: 0, on: throttle)
            try await throttle.recordSuccess(try await allowed(throttle.reserve("ada", now: clock.now)))
            #expect(try await allowed(throttle.reserve("ada", now: clock.now)).number == 1)
        }
    }

    /// The race of issue 16: before, every try of a burst was checked before any failure counted.
    @Test(arguments: AccountBackend.configured)
    func ofSixtyTriesAtOnceFiveAreCountedAndTheRestRefusedUnchecked(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            let now = clock.now
            let decisions = try await withThrowingTaskGroup(of: AttemptLimit.Decision.self) { group in
                for _ in 0..<60 { group.addTask { try await throttle.reserve("ada", now: now) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let numbers = decisions.compactMap { decision -> Int? in
                guard case .allowed(let attempt) = decision else { return nil }
                return attempt.number
            }
            #expect(numbers.sorted() == [1, 2, 3, 4, 5])
            #expect(decisions.filter { $0 == .refused(retryAfter: 60) }.count == 55)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aTryWhosePasswordWasNeverCheckedIsTakenBack(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            var attempts: [AttemptLimit.Attempt] = []
            for _ in 0..<5 { attempts.append(try await allowed(throttle.reserve("ada", now: clock.now))) }
            #expect(try await !isAllowed(throttle.reserve("ada", now: clock.now)))
            // Five tries at one instant: releasing one takes back that one only.
            try await throttle.release(attempts[2])
            #expect(try await allowed(throttle.reserve("ada", now: clock.now)).number == 5)
            #expect(try await !isAllowed(throttle.reserve("ada", now: clock.now)))
        }
    }

    @Test(arguments: AccountBackend.configured)
    func usernamesThatNoLongerCountAreForgotten(backend: AccountBackend) async throws {
        try await withThrottle(on: backend) { throttle in
            for index in 0..<5 { try await fail("user\(index)", times: 1, every: 0, on: throttle) }
            try await fail("locked", times: 5, every: 0, on: throttle)
            clock.advance(by: 61)
            try await fail("late", times: 4, every: 0, on: throttle)
            #expect(try await allowed(throttle.reserve("locked", now: clock.now)).number == 1)
            #expect(try await allowed(throttle.reserve("late", now: clock.now)).number == 5)
        }
    }

    @Test func memoryIsBoundedByCapacity() async throws {
        let failures = InMemorySignInFailures(capacity: 10)
        let throttle = SignInThrottle(storage: failures)
        for index in 0..<1_000 { try await fail("user\(index)", times: 1, every: 0, on: throttle) }
        #expect(failures.trackedCount(in: SignInThrottle.namespace) <= 10)
        try await fail("last", times: 5, every: 0, on: throttle)
        #expect(try await !isAllowed(throttle.reserve("last", now: clock.now)))
    }

    /// Reserves and fails `count` tries for `username`, the clock advancing `seconds` after each.
    private func fail(_ username: String, times count: Int, every seconds: TimeInterval, on throttle: SignInThrottle) async throws {
        for _ in 0..<count {
            try await throttle.recordFailure(try await allowed(throttle.reserve(username, now: clock.now)), now: clock.now)
            clock.advance(by: seconds)
        }
    }

    /// Runs `body` with a throttle counting on a fresh database of `backend`.
    private func withThrottle(on backend: AccountBackend, _ body: (SignInThrottle) async throws -> Void) async throws {
        try await backend.withDatabase { database in
            try await body(SignInThrottle(storage: try await database.makeInstance().signInFailures))
        }
    }
}

/// Attempt limits in general: windows, namespaces, `Retry-After`.
@Suite struct AttemptLimitTests {
    let clock = TestClock()

    @Test(arguments: AccountBackend.configured)
    func aFullKeyWaitsForItsOldestAttemptToLeaveTheWindow(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let limit = AttemptLimit(namespace: "test", limit: 2, window: 600, storage: try await database.makeInstance().signInFailures)
            #expect(try await isAllowed(limit.reserve("192.0.2.1", now: clock.now)))
            clock.advance(by: 100)
            #expect(try await isAllowed(limit.reserve("192.0.2.1", now: clock.now)))
            clock.advance(by: 50)
            #expect(try await limit.reserve("192.0.2.1", now: clock.now) == .refused(retryAfter: 450))
            #expect(try await isAllowed(limit.reserve("192.0.2.2", now: clock.now)))
            clock.advance(by: 450)
            #expect(try await allowed(limit.reserve("192.0.2.1", now: clock.now)).number == 2)
        }
    }

    /// The same key in two namespaces is two keys, and a short window forgetting its own keys
    /// never forgets a long window's.
    @Test(arguments: AccountBackend.configured)
    func namespacesCountApart(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().signInFailures
            let short = AttemptLimit(namespace: "short", limit: 1, window: 60, storage: storage)
            let long = AttemptLimit(namespace: "long", limit: 1, window: 600, storage: storage)
            #expect(try await isAllowed(long.reserve("key", now: clock.now)))
            #expect(try await isAllowed(short.reserve("key", now: clock.now)))
            #expect(try await !isAllowed(short.reserve("key", now: clock.now)))
            clock.advance(by: 120)
            #expect(try await isAllowed(short.reserve("other", now: clock.now)), "and the short namespace is purged")
            #expect(try await long.reserve("key", now: clock.now) == .refused(retryAfter: 480))
            try await long.clear("key")
            #expect(try await isAllowed(long.reserve("key", now: clock.now)))
        }
    }
}

/// The attempt a decision allowed, or a test failure.
func allowed(_ decision: AttemptLimit.Decision) throws -> AttemptLimit.Attempt {
    guard case .allowed(let attempt) = decision else {
        throw TestBrowser.Failure("expected an allowed attempt, got \(decision)")
    }
    return attempt
}

func isAllowed(_ decision: AttemptLimit.Decision) -> Bool {
    if case .allowed = decision { return true }
    return false
}

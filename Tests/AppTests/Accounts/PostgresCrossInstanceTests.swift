import App
import Foundation
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// Two instances in one process, each with its own storage, keeper and throttle, on one
/// PostgreSQL database: sessions and the sign-in limit are the same whichever one is asked.
@Suite(.enabled(if: TestBackend.databaseURLText != nil, Comment(rawValue: TestBackend.postgresSkipReason)))
struct PostgresCrossInstanceTests {
    let clock = TestClock()
    /// How long an ending may take to reach the other instance before the test fails.
    static let bound: Duration = .seconds(5)

    @Test func aSessionStartedOnOneIsValidOnTheOther() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let a = SessionKeeper(storage: try await database.makeInstance().sessions)
            let bStorage = CountingSessionStorage(try await database.makeInstance().sessions)
            let b = SessionKeeper(storage: bStorage)
            let issued = try await a.startWithoutPassword(for: UserID(4), now: clock.now)
            #expect(b.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            #expect(try await b.session(forToken: issued.token, now: clock.now) == issued.record)
            #expect(try await b.session(forToken: issued.token, now: clock.now) == issued.record)
            #expect(await bStorage.reads == 1, "found in the database once, then cached")
        }
    }

    @Test func signingOutOnOneSignsOutOnTheOtherWithinTheBound() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let a = SessionKeeper(storage: try await database.makeInstance().sessions)
            let bStorage = try await database.makeInstance().sessions
            let b = SessionKeeper(storage: bStorage)
            let events = Self.events(of: bStorage)
            let issued = try await a.startWithoutPassword(for: UserID(4), now: clock.now)
            _ = try await b.session(forToken: issued.token, now: clock.now)
            #expect(b.cachedSession(forToken: issued.token, now: clock.now) == .live(issued.record))
            try await a.end(issued.record)
            // B's keeper observed first, so once the test hears the ending, the keeper has too.
            #expect(try await Self.wait(for: .ended(id: issued.record.id), in: events))
            #expect(b.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            #expect(try await b.session(forToken: issued.token, now: clock.now) == nil)
        }
    }

    /// Signing out everywhere else (and a change of password) on one instance ends the person's
    /// cached sessions on the other, and only theirs.
    @Test func endingAPersonsOtherSessionsOnOneEndsThemOnTheOther() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let a = SessionKeeper(storage: try await database.makeInstance().sessions)
            let bStorage = try await database.makeInstance().sessions
            let b = SessionKeeper(storage: bStorage)
            let events = Self.events(of: bStorage)
            let kept = try await a.startWithoutPassword(for: UserID(4), now: clock.now, userAgent: "Firefox/1")
            let phone = try await a.startWithoutPassword(for: UserID(4), now: clock.now)
            let someoneElse = try await a.startWithoutPassword(for: UserID(5), now: clock.now)
            for issued in [kept, phone, someoneElse] { _ = try await b.session(forToken: issued.token, now: clock.now) }
            #expect(try await b.sessions(of: UserID(4), now: clock.now).map(\.userAgent).sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "Firefox/1"])
            #expect(try await a.endSessions(of: UserID(4), except: kept.record.id) == 1)
            #expect(try await Self.wait(for: .ended(id: phone.record.id), in: events))
            #expect(b.cachedSession(forToken: phone.token, now: clock.now) == .needsStorage)
            #expect(try await b.session(forToken: phone.token, now: clock.now) == nil)
            #expect(b.cachedSession(forToken: kept.token, now: clock.now) == .live(kept.record))
            #expect(b.cachedSession(forToken: someoneElse.token, now: clock.now) == .live(someoneElse.record))
            #expect(try await a.end(id: someoneElse.record.id, of: UserID(4)) == false, "another person's session is not ended")
            #expect(try await b.session(forToken: someoneElse.token, now: clock.now) == someoneElse.record)
        }
    }

    @Test func aLostListenerForgetsTheCacheAndCachesAgainOnceBack() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let storage = try await database.makeInstance()
            let counting = CountingSessionStorage(storage.sessions)
            let keeper = SessionKeeper(storage: counting)
            let events = Self.events(of: storage.sessions)
            let issued = try await keeper.startWithoutPassword(for: UserID(4), now: clock.now)
            try await Self.terminateListeners(of: database)
            #expect(try await Self.wait(for: .interrupted, in: events))
            #expect(try await Self.wait(for: .following, in: events), "listening again after reconnecting")
            #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            _ = try await keeper.session(forToken: issued.token, now: clock.now)
            _ = try await keeper.session(forToken: issued.token, now: clock.now)
            #expect(await counting.reads == 1)
        }
    }

    @Test func fiveFailuresSplitThreeAndTwoLockTheUsernameOnBoth() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let a = SignInThrottle(storage: try await database.makeInstance().signInFailures)
            let b = SignInThrottle(storage: try await database.makeInstance().signInFailures)
            for (throttle, name) in [(a, "ada"), (a, "ada"), (a, "ada"), (b, "Ada"), (b, "ADA")] {
                try await throttle.recordFailure(try allowed(await throttle.reserve(name, now: clock.now)), now: clock.now)
            }
            #expect(try await a.reserve("ada", now: clock.now) == .refused(retryAfter: 60))
            #expect(try await b.reserve("ada", now: clock.now) == .refused(retryAfter: 60))
            #expect(try await isAllowed(a.reserve("bob", now: clock.now)))
        }
    }

    /// Sixty tries at once, half on each instance: five are counted, whichever instance they reach.
    @Test func sixtyTriesAtOnceOnTwoInstancesCountFive() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let throttles = [
                SignInThrottle(storage: try await database.makeInstance().signInFailures),
                SignInThrottle(storage: try await database.makeInstance().signInFailures),
            ]
            let now = clock.now
            let allowedCount = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<60 { group.addTask { isAllowed(try await throttles[index % 2].reserve("ada", now: now)) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowedCount == 5)
            #expect(try await throttles[0].reserve("ada", now: now) == .refused(retryAfter: 60))
        }
    }

    /// The events `storage` reports from now on.
    private static func events(of storage: any SessionStorage) -> AsyncStream<SessionStorageEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionStorageEvent.self)
        storage.observeSessionEvents { continuation.yield($0) }
        return stream
    }

    /// Whether `event` comes within ``bound``, skipping the others.
    private static func wait(for event: SessionStorageEvent, in events: AsyncStream<SessionStorageEvent>) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await next in events where next == event { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: bound)
                return false
            }
            let heard = try await group.next() ?? false
            group.cancelAll()
            return heard
        }
    }

    /// Ends the server sessions of the database's listeners, as a restart or a network cut would.
    private static func terminateListeners(of database: AccountDatabase) async throws {
        guard case .postgres(let url, let schema) = database.location else { throw AccountBackendError.notConfigured }
        let admin = PostgresClient(url: url)
        let ended = try await admin.query(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE query = $1",
            ["LISTEN \"\(PostgresAccountStorage.channel(forSchema: schema))\""])
        #expect(ended.rows.count == 1)
        await admin.close()
    }
}

import App
import Foundation
import Logging
import Store
import StoreBackend
import TestSupport
import Testing

/// Sessions: unguessable tokens, only hashes stored, cached reads, hourly touches, 30-day expiry,
/// on every configured backend.
@Suite struct SessionKeeperTests {
    let clock = TestClock()

    @Test(arguments: AccountBackend.configured)
    func aTokenIs256RandomBitsAndOnlyItsHashIsStored(backend: AccountBackend) async throws {
        try await withStartedSession(on: backend) { storage, keeper, first throws in
            let second = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
            #expect(first.token != second.token)
            #expect(Base64URL.decode(first.token)?.count == 32)
            let stored = try #require(try await storage.base.session(id: first.record.id))
            #expect(stored.id == SHA256.hash(try #require(Base64URL.decode(first.token))))
            #expect(stored.id != Array(first.token.utf8))
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aCachedSessionIsReadWithoutTheDatabase(backend: AccountBackend) async throws {
        try await withStartedSession(on: backend) { storage, keeper, issued throws in
            for _ in 0..<5 {
                #expect(try await keeper.session(forToken: issued.token, now: clock.now)?.userID == UserID(1))
            }
            #expect(await storage.reads == 0)
            // A keeper that never saw it (a restart, another instance) reads it once, then from its cache.
            let restarted = SessionKeeper(storage: storage)
            _ = try await restarted.session(forToken: issued.token, now: clock.now)
            _ = try await restarted.session(forToken: issued.token, now: clock.now)
            #expect(await storage.reads == 1)
        }
    }

    @Test(arguments: AccountBackend.configured)
    func lastUsedIsWrittenAtMostOnceAnHour(backend: AccountBackend) async throws {
        try await withStartedSession(on: backend) { storage, keeper, issued throws in
            for _ in 0..<59 {
                clock.advance(by: 60)
                _ = try await keeper.session(forToken: issued.token, now: clock.now)
            }
            #expect(await storage.touches == 0)
            clock.advance(by: 60)
            _ = try await keeper.session(forToken: issued.token, now: clock.now)
            clock.advance(by: 60)
            _ = try await keeper.session(forToken: issued.token, now: clock.now)
            #expect(await storage.touches == 1)
            #expect(try await storage.base.session(id: issued.record.id)?.lastUsedAt == clock.now.addingTimeInterval(-60))
        }
    }

    @Test(arguments: AccountBackend.configured)
    func aSessionUnusedFor30DaysIsGoneAndDeleted(backend: AccountBackend) async throws {
        try await withStartedSession(on: backend) { storage, keeper, issued throws in
            clock.advance(by: SessionKeeper.idleLifetime - 1)
            #expect(try await keeper.session(forToken: issued.token, now: clock.now) != nil)
            clock.advance(by: SessionKeeper.idleLifetime + 1)
            #expect(try await keeper.session(forToken: issued.token, now: clock.now) == nil)
            #expect(try await storage.base.session(id: issued.record.id) == nil)
        }
    }

    @Test(arguments: ["", "x", String(repeating: "A", count: 43) + "=", String(repeating: "A", count: 44), "not a token at all!!!!!!!!!!!!!!!!!!!!!!!!!"])
    func malformedTokensFindNothingWithoutAskingTheDatabase(token: String) async throws {
        let storage = CountingSessionStorage()
        #expect(try await SessionKeeper(storage: storage).session(forToken: token, now: clock.now) == nil)
        #expect(await storage.reads == 0)
    }

    @Test(arguments: AccountBackend.configured)
    func anEndedSessionNoLongerSignsIn(backend: AccountBackend) async throws {
        try await withStartedSession(on: backend) { storage, keeper, issued throws in
            try await keeper.end(issued.record)
            #expect(try await keeper.session(forToken: issued.token, now: clock.now) == nil)
            #expect(try await storage.base.session(id: issued.record.id) == nil)
        }
    }

    /// Past ``SessionKeeper/sessionsPerAccount`` a new session ends the least recently used of
    /// that account (a recent use counts, not the start), and no other account's.
    @Test(arguments: AccountBackend.configured)
    func aSignInPastTheAccountsSessionsEndsTheLeastRecentlyUsed(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            let keeper = SessionKeeper(storage: storage, sessionsPerAccount: 3)
            let other = try await keeper.startWithoutPassword(for: UserID(2), now: clock.now)
            var issued: [IssuedSession] = []
            for _ in 0..<3 {
                issued.append(try await keeper.startWithoutPassword(for: UserID(1), now: clock.now))
                clock.advance(by: 2 * SessionKeeper.touchInterval)
            }
            // The first, the oldest, is used now: the second is the least recently used.
            #expect(try await keeper.session(forToken: issued[0].token, now: clock.now) != nil)
            clock.advance(by: 60)
            issued.append(try await keeper.startWithoutPassword(for: UserID(1), now: clock.now))
            #expect(try await keeper.session(forToken: issued[1].token, now: clock.now) == nil)
            #expect(try await storage.session(id: issued[1].record.id) == nil)
            for kept in [0, 2, 3] { #expect(try await keeper.session(forToken: issued[kept].token, now: clock.now) != nil) }
            #expect(try await storage.sessions(of: UserID(1)).count == 3)
            #expect(try await keeper.session(forToken: other.token, now: clock.now) != nil)
        }
    }

    /// 30 sign-ins of one account at once leave it exactly its 5 sessions; the next keeps its own.
    @Test(arguments: AccountBackend.configured)
    func manySignInsAtOnceLeaveNoMoreThanTheAccountsSessions(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = try await database.makeInstance().sessions
            let keeper = SessionKeeper(storage: storage, sessionsPerAccount: 5)
            let now = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<30 { group.addTask { _ = try await keeper.startWithoutPassword(for: UserID(1), now: now) } }
                try await group.waitForAll()
            }
            // They rank in one order, so no trim ends a session another keeps: exactly 5 are left.
            #expect(try await storage.sessions(of: UserID(1)).count == 5)
            let newest = try await keeper.startWithoutPassword(for: UserID(1), now: now.addingTimeInterval(1))
            #expect(try await storage.sessions(of: UserID(1)).count == 5)
            #expect(try await keeper.session(forToken: newest.token, now: now.addingTimeInterval(1)) != nil)
        }
    }

    /// A trim that fails never fails the sign-in; it is reported, and the next sign-in's trim
    /// brings the account back to its limit.
    @Test func aTrimThatFailsIsReportedAndTheNextOneCatchesUp() async throws {
        let storage = CountingSessionStorage()
        let log = InMemoryLogSink()
        let keeper = SessionKeeper(storage: storage, sessionsPerAccount: 2, logger: Logger(label: "sessions", sink: log))
        await storage.setFailsListing(true)
        for _ in 0..<3 { _ = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now) }
        await storage.setFailsListing(false)
        #expect(try await storage.sessions(of: UserID(1)).count == 3)
        let warnings = log.entries.filter { $0.level == .warning }
        #expect(warnings.count == 3)
        #expect(warnings.allSatisfy { $0.message.contains("could not end account 1's sessions past 2") })
        _ = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        #expect(try await storage.sessions(of: UserID(1)).count == 2)
        #expect(log.entries.count == 3)
    }

    /// Runs `body` with counting storage on a fresh database of `backend`, a keeper on it and a
    /// session that keeper started for user 1.
    private func withStartedSession(
        on backend: AccountBackend, _ body: (CountingSessionStorage, SessionKeeper, IssuedSession) async throws -> Void
    ) async throws {
        try await backend.withDatabase { database in
            let storage = CountingSessionStorage(try await database.makeInstance().sessions)
            let keeper = SessionKeeper(storage: storage)
            try await body(storage, keeper, try await keeper.startWithoutPassword(for: UserID(1), now: clock.now))
        }
    }
}

/// What the keeper does with the storage's word about sessions ended elsewhere.
@Suite struct SessionKeeperEventTests {
    let clock = TestClock()

    @Test func aSessionEndedElsewhereIsEvictedAndReadAgain() async throws {
        let storage = CountingSessionStorage()
        let keeper = SessionKeeper(storage: storage)
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        try await storage.base.delete(id: issued.record.id)
        #expect(try await keeper.session(forToken: issued.token, now: clock.now) != nil, "still cached: nothing was heard")
        storage.send(.ended(id: issued.record.id))
        #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
        #expect(try await keeper.session(forToken: issued.token, now: clock.now) == nil)
        #expect(await storage.reads == 1)
    }

    @Test func whileEndingsGoUnheardNothingIsCached() async throws {
        let storage = CountingSessionStorage()
        let keeper = SessionKeeper(storage: storage)
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        storage.send(.interrupted)
        #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage, "the cache was cleared")
        _ = try await keeper.session(forToken: issued.token, now: clock.now)
        _ = try await keeper.session(forToken: issued.token, now: clock.now)
        #expect(await storage.reads == 2)
        storage.send(.following)
        _ = try await keeper.session(forToken: issued.token, now: clock.now)
        _ = try await keeper.session(forToken: issued.token, now: clock.now)
        #expect(await storage.reads == 3)
    }

    @Test func aReadThatRacedAnEndingIsNotCached() async throws {
        let storage = CountingSessionStorage()
        let issued = try await SessionKeeper(storage: storage).startWithoutPassword(for: UserID(1), now: clock.now)
        let keeper = SessionKeeper(storage: storage)
        // The ending is heard while storage answers with the session as it was before.
        await storage.setDuringRead { storage.send(.ended(id: issued.record.id)) }
        #expect(try await keeper.session(forToken: issued.token, now: clock.now) != nil)
        await storage.setDuringRead(nil)
        try await storage.base.delete(id: issued.record.id)
        #expect(try await keeper.session(forToken: issued.token, now: clock.now) == nil)
    }

    @Test func aCachedSessionDueForATouchIsReadAgainFirst() async throws {
        let storage = CountingSessionStorage()
        let keeper = SessionKeeper(storage: storage)
        let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
        // Another instance used it half an hour ago; this one last saw it an hour ago.
        clock.advance(by: SessionKeeper.touchInterval)
        try await storage.base.touch(id: issued.record.id, at: clock.now.addingTimeInterval(-1_800))
        let record = try await keeper.session(forToken: issued.token, now: clock.now)
        #expect(record?.lastUsedAt == clock.now.addingTimeInterval(-1_800))
        #expect(await storage.reads == 1)
        #expect(await storage.touches == 0, "used within the hour, so no write")
    }
}

/// CSRF tokens bound to a session or a pre-session cookie.
@Suite struct CSRFProtectionTests {
    let csrf = CSRFProtection(key: Array("a server key of thirty-two bytes".utf8))

    @Test func aTokenIsValidOnlyForItsBinding() {
        let mine = CSRFProtection.Binding.session(id: SHA256.hash([1]))
        let theirs = CSRFProtection.Binding.session(id: SHA256.hash([2]))
        let token = csrf.token(for: mine)
        #expect(csrf.isValid(token, for: mine))
        #expect(!csrf.isValid(token, for: theirs))
        #expect(!csrf.isValid(token, for: .preSession("AAAAAAAAAAAAAAAAAAAAAA")))
        #expect(!csrf.isValid(nil, for: mine))
        #expect(!csrf.isValid("", for: mine))
        #expect(!CSRFProtection(key: [1, 2, 3]).isValid(token, for: mine))
    }

    @Test func aCachedTokenIsTheHMACOfItsBindingAndStillRefusedElsewhere() {
        let key = Array("a server key of thirty-two bytes".utf8)
        let csrf = CSRFProtection(key: key)
        let mine = CSRFProtection.Binding.session(id: SHA256.hash([1]))
        let theirs = CSRFProtection.Binding.session(id: SHA256.hash([2]))
        let preSession = CSRFProtection.Binding.preSession("AAAAAAAAAAAAAAAAAAAAAA")
        let expected = Base64URL.encode(HMACSHA256.authenticationCode(for: Array("session:".utf8) + SHA256.hash([1]), key: key))
        #expect(csrf.token(for: mine) == expected)
        #expect(csrf.cachedTokenCount == 1)
        #expect(csrf.token(for: mine) == expected, "the cached token is the same HMAC")
        #expect(csrf.cachedTokenCount == 1, "and was not computed again")
        let theirToken = csrf.token(for: theirs)
        _ = csrf.token(for: preSession)
        #expect(csrf.cachedTokenCount == 3)
        #expect(theirToken != expected)
        #expect(csrf.isValid(expected, for: mine))
        #expect(!csrf.isValid(expected, for: theirs), "a cached token is still refused for another session")
        #expect(!csrf.isValid(theirToken, for: mine))
        #expect(!csrf.isValid(expected, for: preSession))
        #expect(!CSRFProtection(key: [1, 2, 3]).isValid(expected, for: mine), "and under another key")
    }

    @Test func theTokenCacheIsBoundedAndStartsOverWhenFull() {
        let key = Array("a server key of thirty-two bytes".utf8)
        let csrf = CSRFProtection(key: key, cacheLimit: 2)
        let uncached = CSRFProtection(key: key, cacheLimit: 1)
        let bindings = (1...5).map { CSRFProtection.Binding.session(id: SHA256.hash([UInt8($0)])) }
        for binding in bindings {
            _ = csrf.token(for: binding)
            #expect(csrf.cachedTokenCount <= 2)
        }
        for binding in bindings {
            #expect(csrf.token(for: binding) == uncached.token(for: binding))
            #expect(csrf.isValid(uncached.token(for: binding), for: binding))
        }
        #expect(!csrf.isValid(uncached.token(for: bindings[0]), for: bindings[1]))
    }

    /// Sessions' bindings hash by their id (a digest the server made), pre-sessions' by SipHash,
    /// in one table: each of 2,000 of both kinds gets its own binding's token back.
    @Test func sessionAndPreSessionBindingsShareTheCache() {
        let key = Array("a server key of thirty-two bytes".utf8)
        let csrf = CSRFProtection(key: key)
        let uncached = CSRFProtection(key: key, cacheLimit: 1)
        let bindings = (0..<1_000).flatMap { index -> [CSRFProtection.Binding] in
            let id = SHA256.hash(Array("session \(index)".utf8))
            return [.session(id: id), .preSession(Base64URL.encode(Array(id.prefix(16))))]
        }
        let tokens = bindings.map { csrf.token(for: $0) }
        #expect(csrf.cachedTokenCount == 2_000)
        #expect(Set(tokens).count == 2_000)
        for (binding, token) in zip(bindings, tokens) {
            #expect(csrf.token(for: binding) == token && token == uncached.token(for: binding))
        }
        #expect(csrf.cachedTokenCount == 2_000)
    }

    @Test func preSessionValuesAre128RandomBits() {
        let value = CSRFProtection.makePreSessionValue()
        #expect(CSRFProtection.isPreSessionValue(value))
        #expect(value != CSRFProtection.makePreSessionValue())
        #expect(!CSRFProtection.isPreSessionValue("short"))
        #expect(!CSRFProtection.isPreSessionValue(String(repeating: "!", count: 22)))
    }
}

/// `return_to` accepts local paths only.
@Suite struct ReturnPathTests {
    @Test(arguments: ["/", "/quotes/1/edit", "/profile/edit", "/quotes?page=2", "/users/ada%5Fx"])
    func acceptsLocalPaths(path: String) {
        #expect(ReturnPath(path)?.rawValue == path)
    }

    @Test(arguments: [
        "", "quotes", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "https://evil.example/",
        "javascript:alert(1)", "/%2F%2Fevil.example", "/%2fevil.example", "/%5Cevil.example", "/%252F%252Fevil.example",
        "/a\u{0}b", "/a\rb", "/a\nLocation: x", "/a b", "/\u{7F}", "/%0d%0aSet-Cookie:x", "/%zz", String(repeating: "/a", count: 2000),
    ])
    func refusesEverythingElse(path: String) {
        #expect(ReturnPath(path) == nil)
    }
}

/// The cache-only lookup the event loop's synchronous path uses.
@Suite struct CachedSessionLookupTests {
    let clock = TestClock()

    @Test(arguments: AccountBackend.configured)
    func aCachedSessionUsedWithinTheHourIsLive(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let keeper = SessionKeeper(storage: try await database.makeInstance().sessions)
            let issued = try await keeper.startWithoutPassword(for: UserID(1), now: clock.now)
            clock.advance(by: SessionKeeper.touchInterval - 1)
            #expect(keeper.cachedSession(forToken: issued.token, now: clock.now) == .live(issued.record))
        }
    }

    @Test(arguments: AccountBackend.configured)
    func needsStorageWhenNotCachedOrDueForATouchOrExpired(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            let storage = CountingSessionStorage(try await database.makeInstance().sessions)
            let issued = try await SessionKeeper(storage: storage).startWithoutPassword(for: UserID(1), now: clock.now)
            let restarted = SessionKeeper(storage: storage)
            #expect(restarted.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            _ = try await restarted.session(forToken: issued.token, now: clock.now)
            #expect(restarted.cachedSession(forToken: issued.token, now: clock.now) == .live(issued.record))
            clock.advance(by: SessionKeeper.touchInterval)
            #expect(restarted.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            clock.advance(by: SessionKeeper.idleLifetime)
            #expect(restarted.cachedSession(forToken: issued.token, now: clock.now) == .needsStorage)
            #expect(await storage.reads == 1)
            #expect(await storage.touches == 0)
        }
    }

    /// What a deletion cut short left (sessions and a password of an account the book no longer
    /// has) is erased at start-up; live accounts, and ids the state has not given yet (another
    /// instance's sign-up not applied here), keep theirs.
    @Test(arguments: AccountBackend.configured)
    func startUpErasesWhatDeletedAccountsLeftAndNothingElse(backend: AccountBackend) async throws {
        try await backend.withDatabase { database in
            var state = AppState()
            for name in ["ada", "bob", "cyd"] {
                _ = try AppReducer.reduce(&state, .signUp(try #require(Username(name)), displayName: name, at: clock.now))
            }
            _ = try AppReducer.reduce(&state, .deleteAccount(UserID(2), at: clock.now))
            #expect(state.nextUserID == UserID(4))
            let storage = try await database.makeInstance().sessions
            // Ada and Bob signed in; Cyd has only a password; 4, the state's next id, is someone
            // another instance has just signed up.
            let keeper = SessionKeeper(storage: storage)
            for user in [1, 2, 2, 4] { _ = try await keeper.startWithoutPassword(for: UserID(user), now: clock.now) }
            for user in [1, 2, 3, 4] { try await storage.setPasswordHash(PasswordHash(encoded: "hash \(user)"), of: UserID(user)) }

            #expect(try await SessionKeeper.eraseDeletedAccounts(from: storage, in: state) == 1)
            #expect(try await storage.sessions(of: UserID(2)).isEmpty)
            #expect(try await storage.passwordHash(of: UserID(2)) == nil)
            #expect(try await storage.sessions(of: UserID(1)).count == 1)
            #expect(try await storage.sessions(of: UserID(4)).count == 1)
            for user in [1, 3, 4] { #expect(try await storage.passwordHash(of: UserID(user)) == PasswordHash(encoded: "hash \(user)")) }
            #expect(try await SessionKeeper.eraseDeletedAccounts(from: storage, in: state) == 0, "nothing is left the second time")
        }
    }

    @Test func aMalformedTokenIsNoSession() {
        let keeper = SessionKeeper(storage: AccountStorageDouble())
        #expect(keeper.cachedSession(forToken: "not-a-token", now: clock.now) == .notAToken)
    }
}

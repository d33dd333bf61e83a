import Basics
package import Foundation
package import Logging
package import Store
import Synchronization

/// A session just started: the token for the cookie (shown once, never stored) and its record.
package struct IssuedSession: Sendable, Equatable {
    /// 256 random bits, base64url: what the `quotebook_session` cookie carries.
    package let token: String
    package let record: SessionRecord
}

/// Starts, finds and ends sessions (SPEC.md "Sessions and security").
///
/// A token is 32 bytes from the system's secure random source; only its SHA-256 is stored.
/// Reading a session costs no database round trip once cached, and "last used" is written at
/// most once per ``touchInterval`` per session. Sessions end after ``idleLifetime`` unused.
///
/// With instances sharing the storage, the cache stays true through the storage's events
/// (``SessionStorage/observeSessionEvents(_:)``): a session ended anywhere is evicted, and while
/// the storage cannot hear endings nothing is cached. A cached session due for a "last used"
/// write is read again first, since another instance may have used or ended it since.
package final class SessionKeeper: Sendable {
    /// Sessions end after 30 days without use.
    package static let idleLifetime: TimeInterval = 30 * 86_400
    /// "Last used" is written when it is at least this old.
    package static let touchInterval: TimeInterval = 3_600

    private let storage: any SessionStorage
    private let cache: SessionCache
    /// Ids of tokens that named a live session: a cached session costs no SHA-256 to find.
    private let tokenIDs: SessionTokenIDs

    /// Sessions one account may have at once; a sign-in past it ends the least recently used
    /// (``AccountLimits/sessionsPerAccount``).
    package let sessionsPerAccount: Int
    /// Where a trim that failed is reported.
    private let logger: Logger

    package init(
        storage: any SessionStorage, cacheLimit: Int = 10_000, sessionsPerAccount: Int = AccountLimits().sessionsPerAccount,
        logger: Logger = .discarding()
    ) {
        self.storage = storage
        self.logger = logger
        self.sessionsPerAccount = max(1, sessionsPerAccount)
        tokenIDs = SessionTokenIDs(limit: cacheLimit)
        let cache = SessionCache(limit: max(1, cacheLimit))
        self.cache = cache
        storage.observeSessionEvents { event in cache.handle(event) }
    }

    /// The live session a cookie's `token` names, or nil for a malformed, unknown or expired one
    /// (an expired one is deleted).
    package func session(forToken token: String, now: Date) async throws(StoreError) -> SessionRecord? {
        guard let id = id(forToken: token) else { return nil }
        if let cached = cache.record(for: id), now.timeIntervalSince(cached.lastUsedAt) < Self.touchInterval { return cached }
        // An ending heard while storage answers makes the answer too old to cache.
        let generation = cache.generation
        guard var record = try await storage.session(id: id) else {
            cache.drop(id)
            return nil
        }
        let idle = now.timeIntervalSince(record.lastUsedAt)
        if idle > Self.idleLifetime {
            try await end(record)
            return nil
        }
        if idle >= Self.touchInterval {
            try await storage.touch(id: id, at: now)
            record.lastUsedAt = now
        }
        cache.remember(record, ifGeneration: generation)
        if let key = SessionTokenIDs.Token(token) { tokenIDs.remember(id, for: key) }
        return record
    }

    /// What the cache alone says about a cookie's token, without any I/O.
    package enum CachedLookup: Sendable, Equatable {
        /// Not a token at all: there is no session, as ``SessionKeeper/session(forToken:now:)`` would say.
        case notAToken
        /// The live session, used within the last ``SessionKeeper/touchInterval``: reading it
        /// writes nothing, so this is exactly what ``SessionKeeper/session(forToken:now:)`` returns.
        case live(SessionRecord)
        /// Not cached, expired, or due for a "last used" write: only
        /// ``SessionKeeper/session(forToken:now:)`` can answer.
        case needsStorage
    }

    /// The session a cookie's `token` names if the cache can tell without storage: for callers
    /// that must not wait (the event loop's synchronous path), falling back to
    /// ``session(forToken:now:)`` on ``CachedLookup/needsStorage``.
    package func cachedSession(forToken token: String, now: Date) -> CachedLookup {
        guard let id = id(forToken: token) else { return .notAToken }
        guard let record = cache.record(for: id) else { return .needsStorage }
        // Below the touch interval is also below the idle lifetime: nothing to write or delete.
        guard now.timeIntervalSince(record.lastUsedAt) < Self.touchInterval else { return .needsStorage }
        return .live(record)
    }

    /// Starts a new session for `user` with a fresh token (never one the client offered), if
    /// their password hash is still `hash`, the one the caller checked or set (nil: they have
    /// none); nil, starting nothing, once it changed or was erased. No session outlives the
    /// password it was made with: storage compares and inserts in one step
    /// (``SessionStorage/insert(_:ifPasswordIs:)``), and every change of the password sets the new
    /// hash before it ends the sessions. `userAgent`: the browser's `User-Agent`, kept (cut short)
    /// for the sessions page.
    package func start(
        for user: UserID, whilePasswordIs hash: PasswordHash?, now: Date, userAgent: String? = nil
    ) async throws(StoreError) -> IssuedSession? {
        let secret = SecretToken.make()
        let record = SessionRecord(
            id: secret.hash, userID: user, createdAt: now, lastUsedAt: now, userAgent: userAgent.map(Self.shortened))
        // Taken before the insert: a change of password or a deletion that ends the new session
        // between the insert and the caching moves the generation on, and it is not cached.
        let generation = cache.generation
        guard try await storage.insert(record, ifPasswordIs: hash) else { return nil }
        cache.remember(record, ifGeneration: generation)
        let token = secret.text
        if let key = SessionTokenIDs.Token(token) { tokenIDs.remember(record.id, for: key) }
        // A bound, not a promise: a trim that fails (the database gone for a moment) leaves the
        // account over the limit until a later sign-in's trim succeeds, and never fails this one.
        do {
            try await endLeastRecentlyUsed(of: user)
        } catch {
            logger.warning("could not end account \(user)'s sessions past \(sessionsPerAccount); a later sign-in tries again: \(error)")
        }
        return IssuedSession(token: token, record: record)
    }

    /// Ends `user`'s sessions past the ``sessionsPerAccount`` most recently used: without a
    /// bound, one client signing in again and again kept a session row for each, for 30 days.
    ///
    /// Ranked in one total order, most recent use first, then most recent start, then id (a
    /// SHA-256, unique), so sign-ins trimming at once agree: none ends a session any of them
    /// keeps. The one just started is kept unless the limit's worth of sessions ranks above it
    /// (started or used since: a flood, whose browser is then signed out). Each lists after its
    /// own insert, so once concurrent sign-ins have all returned the last list saw every insert
    /// and the account holds at most the limit (exactly, unless a use between two lists reordered
    /// them). "Last used" is written at most hourly (``touchInterval``), so least recently used
    /// is to the hour.
    private func endLeastRecentlyUsed(of user: UserID) async throws(StoreError) {
        let all = try await storage.sessions(of: user)
        guard all.count > sessionsPerAccount else { return }
        let ranked = all.sorted { Self.ranksBefore($0, $1) }
        for session in ranked.dropFirst(sessionsPerAccount) { try await end(session) }
    }

    /// Whether `lhs` was used more recently than `rhs`, in a total order (ties by start, then id).
    private static func ranksBefore(_ lhs: SessionRecord, _ rhs: SessionRecord) -> Bool {
        if lhs.lastUsedAt != rhs.lastUsedAt { return lhs.lastUsedAt > rhs.lastUsedAt }
        if lhs.createdAt != rhs.createdAt { return lhs.createdAt > rhs.createdAt }
        return lhs.id.lexicographicallyPrecedes(rhs.id)
    }

    /// Ends `session`: deleted from storage and cache, so its token is worthless from now on.
    package func end(_ session: SessionRecord) async throws(StoreError) {
        cache.forget(session.id)
        try await storage.delete(id: session.id)
    }

    /// Every live session of `user` (those unused for longer than ``idleLifetime`` are left out),
    /// oldest first.
    package func sessions(of user: UserID, now: Date) async throws(StoreError) -> [SessionRecord] {
        try await storage.sessions(of: user).filter { now.timeIntervalSince($0.lastUsedAt) <= Self.idleLifetime }
    }

    /// Ends the session of `user` whose id is `id`; false, ending nothing, when `user` has none
    /// such (someone else's id, or one already ended).
    package func end(id: [UInt8], of user: UserID) async throws(StoreError) -> Bool {
        guard let record = try await storage.session(id: id), record.userID == user else { return false }
        try await end(record)
        return true
    }

    /// Ends every session of `user` but the one whose id is `kept` (nil: all of them), on every
    /// instance; returns how many ended.
    @discardableResult
    package func endSessions(of user: UserID, except kept: [UInt8]?) async throws(StoreError) -> Int {
        let ended = try await storage.deleteSessions(of: user, except: kept)
        for id in ended { cache.forget(id) }
        return ended.count
    }

    /// Forgets the sessions with these ids, which storage already ended (a reset ends them in
    /// its own transaction).
    package func forget(_ ended: [[UInt8]]) {
        for id in ended { cache.forget(id) }
    }

    /// `user`'s password hash, from account storage.
    package func passwordHash(of user: UserID) async throws(StoreError) -> PasswordHash? {
        try await storage.passwordHash(of: user)
    }

    /// Keeps `hash` as `user`'s password, in account storage (never the journal).
    package func setPasswordHash(_ hash: PasswordHash, of user: UserID) async throws(StoreError) {
        try await storage.setPasswordHash(hash, of: user)
    }

    /// Replaces `user`'s password hash with `new` only while it is still `checked`; false when
    /// another change or a deletion came first (``SessionStorage/replacePasswordHash(of:checked:with:)``).
    package func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) async throws(StoreError) -> Bool {
        try await storage.replacePasswordHash(of: user, checked: checked, with: new)
    }

    /// Forgets `user`'s password and then ends every session of theirs on every instance: what
    /// account storage held of a deleted account. In that order, so a sign-in checked against
    /// the old hash can start no session after the endings (``start(for:whilePasswordIs:now:userAgent:)``).
    /// Then the erased rows leave the storage's files (``DeletionSettling``); one a reader held
    /// up waits for the next full checkpoint or the close.
    package func erase(_ user: UserID) async throws(StoreError) {
        try await storage.deleteSecrets(of: user)
        _ = try await endSessions(of: user, except: nil)
        _ = await storage.settleDeletions()
    }

    /// Erases what `storage` still holds of accounts `state` no longer has (their sessions and
    /// password hash), returning how many: left by a process that died after journaling a
    /// deletion and before ``erase(_:)`` (``AccountsController/deleteAccount(of:password:client:)``),
    /// or written back by a change of password that raced the deletion from another browser.
    /// Run at start-up, before any cache of sessions exists; other instances hear each ending.
    ///
    /// Only accounts below `state`'s next id count: ids are given in journal order and never
    /// again, so one of those missing from `state` was deleted, while an id at or past it may be
    /// an account another instance has just made, whose sign-up this state does not hold yet.
    package static func eraseDeletedAccounts(from storage: any SessionStorage, in state: AppState) async throws(StoreError) -> Int {
        var erased = 0
        for user in try await storage.storedAccountIDs() where user.rawValue < state.nextUserID.rawValue && state.users[user] == nil {
            try await storage.deleteSecrets(of: user)
            _ = try await storage.deleteSessions(of: user, except: nil)
            erased += 1
        }
        if erased > 0 { _ = await storage.settleDeletions() }
        return erased
    }

    /// `userAgent` cut to at most ``SessionRecord/maximumUserAgentBytes`` UTF-8 bytes, on a
    /// character boundary.
    static func shortened(_ userAgent: String) -> String {
        guard userAgent.utf8.count > SessionRecord.maximumUserAgentBytes else { return userAgent }
        var kept = ""
        for character in userAgent {
            guard kept.utf8.count + character.utf8.count <= SessionRecord.maximumUserAgentBytes else { break }
            kept.append(character)
        }
        return kept
    }

    /// Deletes every session unused for longer than ``idleLifetime`` before `now`.
    package func deleteExpired(now: Date) async throws(StoreError) -> Int {
        let cutoff = now.addingTimeInterval(-Self.idleLifetime)
        cache.forgetSessions(unusedSince: cutoff)
        return try await storage.deleteSessions(unusedSince: cutoff)
    }

    /// How many tokens' ids are remembered (for tests).
    package var rememberedTokenCount: Int { tokenIDs.count }

    /// ``id(forToken:)``, remembered for tokens that named a live session.
    private func id(forToken token: String) -> [UInt8]? {
        if let key = SessionTokenIDs.Token(token), let id = tokenIDs.id(for: key) { return id }
        return Self.id(forToken: token)
    }

    /// The stored id for a cookie token (``SecretToken/hash(of:)``); nil when it is not a token.
    package static func id(forToken token: String) -> [UInt8]? { SecretToken.hash(of: token) }
}

/// The keeper's sessions by id (token hash): a ``BoundedCache`` (so unknown tokens cannot grow
/// it; it starts over when full), with whether storage lets it cache at all. Its revision is the
/// generation: every ending moves it on, so a read of storage that began before cannot cache
/// what it found, while the other sessions stay.
///
/// `isFollowing` is an atomic flag beside the cache rather than in its lock. What makes that
/// safe: ``handle(_:)`` changes the flag and then moves the revision on (dropping everything),
/// while ``remember(_:ifGeneration:)`` takes the revision, then reads the flag, then inserts
/// stamped with that revision. An insert that saw the flag set before an interruption cleared
/// it is stamped with a revision the interruption has since passed, so it is ignored, or it came
/// first and the interruption drops it: nothing is ever kept while storage cannot hear endings.
private final class SessionCache: Sendable {
    /// A session id (the SHA-256 of a token the server drew) as this table keys it: hashed by
    /// ``ServerIDHash/mix(digest:seed:)``, since only live sessions the server started are ever
    /// entered.
    private struct Key: Hashable, Sendable {
        let id: [UInt8]

        func _rawHashValue(seed: Int) -> Int { ServerIDHash.mix(digest: id, seed: seed) }
        func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }
    }

    private let records: BoundedCache<Key, SessionRecord>
    /// Whether storage hears endings now (``SessionStorageEvent``); when not, nothing is kept.
    private let isFollowing = Atomic(false)

    init(limit: Int) {
        records = BoundedCache(countLimit: limit)
    }

    /// Take it before reading storage and pass it to ``remember(_:ifGeneration:)``.
    var generation: UInt64 { records.revision }

    func record(for id: [UInt8]) -> SessionRecord? {
        records.value(forKey: Key(id: id))
    }

    /// Keeps `record` if storage hears endings and, given a `generation`, no session ended since.
    func remember(_ record: SessionRecord, ifGeneration generation: UInt64?) {
        let stamp = generation ?? records.revision
        guard isFollowing.load(ordering: .sequentiallyConsistent) else { return }
        records.insert(record, forKey: Key(id: record.id), revision: stamp)
    }

    /// Removes `id` because storage no longer has it: nothing to fence off, so unknown tokens
    /// cannot keep other reads from being cached.
    func drop(_ id: [UInt8]) {
        records.removeValue(forKey: Key(id: id))
    }

    /// Removes `id` because it ended: a read of it already under way must not cache it.
    func forget(_ id: [UInt8]) {
        records.invalidate(Key(id: id))
    }

    func forgetSessions(unusedSince cutoff: Date) {
        records.removeAll { $0.lastUsedAt < cutoff }
    }

    func handle(_ event: SessionStorageEvent) {
        switch event {
        case .ended(let id): forget(id)
        case .interrupted:
            isFollowing.store(false, ordering: .sequentiallyConsistent)
            records.invalidateAll()
        case .following:
            isFollowing.store(true, ordering: .sequentiallyConsistent)
            records.invalidateAll()
        }
    }
}

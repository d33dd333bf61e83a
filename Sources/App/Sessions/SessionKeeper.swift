package import Foundation
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
package final class SessionKeeper: Sendable {
    package static let cookieName = "quotebook_session"
    /// Sessions end after 30 days without use.
    package static let idleLifetime: TimeInterval = 30 * 86_400
    /// "Last used" is written when it is at least this old.
    package static let touchInterval: TimeInterval = 3_600
    static let tokenByteCount = 32

    private let storage: any SessionStorage
    /// Sessions by id (token hash); bounded, so unknown tokens cannot grow it.
    private let cache = Mutex<[[UInt8]: SessionRecord]>([:])
    private let cacheLimit: Int

    package init(storage: any SessionStorage, cacheLimit: Int = 10_000) {
        self.storage = storage
        self.cacheLimit = max(1, cacheLimit)
    }

    /// The live session a cookie's `token` names, or nil for a malformed, unknown or expired one
    /// (an expired one is deleted).
    package func session(forToken token: String, now: Date) async throws(StoreError) -> SessionRecord? {
        guard let id = Self.id(forToken: token) else { return nil }
        var found = cache.withLock { $0[id] }
        if found == nil {
            found = try await storage.session(id: id)
        }
        guard var record = found else { return nil }
        let idle = now.timeIntervalSince(record.lastUsedAt)
        if idle > Self.idleLifetime {
            try await end(record)
            return nil
        }
        if idle >= Self.touchInterval {
            try await storage.touch(id: id, at: now)
            record.lastUsedAt = now
        }
        remember(record)
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
        guard let id = Self.id(forToken: token) else { return .notAToken }
        guard let record = cache.withLock({ $0[id] }) else { return .needsStorage }
        // Below the touch interval is also below the idle lifetime: nothing to write or delete.
        guard now.timeIntervalSince(record.lastUsedAt) < Self.touchInterval else { return .needsStorage }
        return .live(record)
    }

    /// Starts a new session for `user` with a fresh token (never one the client offered).
    package func start(for user: UserID, now: Date) async throws(StoreError) -> IssuedSession {
        let secret = SecureRandom.bytes(Self.tokenByteCount)
        let record = SessionRecord(id: SHA256.hash(secret), userID: user, createdAt: now, lastUsedAt: now)
        try await storage.insert(record)
        remember(record)
        return IssuedSession(token: Base64URL.encode(secret), record: record)
    }

    /// Ends `session`: deleted from storage and cache, so its token is worthless from now on.
    package func end(_ session: SessionRecord) async throws(StoreError) {
        _ = cache.withLock { $0.removeValue(forKey: session.id) }
        try await storage.delete(id: session.id)
    }

    /// Deletes every session unused for longer than ``idleLifetime`` before `now`.
    package func deleteExpired(now: Date) async throws(StoreError) -> Int {
        let cutoff = now.addingTimeInterval(-Self.idleLifetime)
        cache.withLock { cache in cache = cache.filter { $0.value.lastUsedAt >= cutoff } }
        return try await storage.deleteSessions(unusedSince: cutoff)
    }

    /// The stored id for a cookie token: SHA-256 of its 32 bytes; nil when it is not a token.
    package static func id(forToken token: String) -> [UInt8]? {
        guard token.utf8.count == 43, let bytes = Base64URL.decode(token), bytes.count == tokenByteCount else { return nil }
        return SHA256.hash(bytes)
    }

    private func remember(_ record: SessionRecord) {
        cache.withLock { cache in
            if cache[record.id] == nil, cache.count >= cacheLimit { cache.remove(at: cache.startIndex) }
            cache[record.id] = record
        }
    }
}

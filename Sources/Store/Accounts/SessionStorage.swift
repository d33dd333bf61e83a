package import Foundation

/// A signed-in session as stored: never the cookie's token, only its SHA-256.
package struct SessionRecord: Sendable, Equatable {
    /// SHA-256 of the session token (32 bytes): the token itself is never stored.
    package var id: [UInt8]
    package var userID: UserID
    package var createdAt: Date
    /// When a request last used it, written at most about once an hour (see the session cache).
    package var lastUsedAt: Date
    /// The `User-Agent` the browser sent at sign-in (cut to ``maximumUserAgentBytes``), so
    /// the sessions page can say which browser it is; nil when none was sent.
    package var userAgent: String?

    /// Longest `User-Agent` kept, in UTF-8 bytes: enough to tell the browser and system.
    package static let maximumUserAgentBytes = 256

    package init(id: [UInt8], userID: UserID, createdAt: Date, lastUsedAt: Date, userAgent: String? = nil) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.userAgent = userAgent
    }
}

/// Storage whose files may keep what was deleted for a while, and can be made not to.
package protocol DeletionSettling: Sendable {
    /// Makes what was deleted so far unrecoverable from the storage's files now, not at some
    /// later checkpoint: called after erasing a deleted account and freeing its photo (SPEC.md:
    /// nothing that names the person stays anywhere in the database). SQLite copies the
    /// write-ahead log, which holds the pages as they were before the deletions, into the
    /// database file (where `secure_delete` zeroed the freed space) and empties it. False when
    /// it could not finish now (a reader held it up), for the caller to log. PostgreSQL has
    /// nothing to do here: its deleted rows are reclaimed by its own vacuum. No default, so a
    /// storage that wraps another cannot drop the call by forgetting it.
    func settleDeletions() async -> Bool
}

/// Durable sessions, the server's secrets and changed password hashes, kept apart from the
/// action journal: a session is a revocable credential, not a change to the book, and a
/// password hash is a secret the journal must never hold. In SQLite (``SQLiteAccountStorage``) or, shared
/// by every instance, PostgreSQL (``PostgresAccountStorage``).
package protocol SessionStorage: DeletionSettling {
    /// Keeps `session`, in the same statement that reads its account's password hash, only if
    /// that hash is `hash` (nil: the account has none): false, keeping nothing, once the password
    /// changed or the account's hash was erased. So a sign-in whose check began before a change
    /// cannot start a session after it (SPEC.md "Sessions and security"); with several
    /// instances the hash's row is locked while it is read, so a change either waits for this
    /// insert, and then ends its session, or has already made it refuse.
    func insert(_ session: SessionRecord, ifPasswordIs hash: PasswordHash?) async throws(StoreError) -> Bool
    /// The session whose id (token hash) is `id`, if it exists.
    func session(id: [UInt8]) async throws(StoreError) -> SessionRecord?
    /// Records that the session was used at `date`.
    func touch(id: [UInt8], at date: Date) async throws(StoreError)
    func delete(id: [UInt8]) async throws(StoreError)
    /// Deletes sessions last used before `cutoff`, returning how many.
    func deleteSessions(unusedSince cutoff: Date) async throws(StoreError) -> Int
    /// Every session of `user`, oldest first.
    func sessions(of user: UserID) async throws(StoreError) -> [SessionRecord]
    /// Deletes every session of `user` except the one whose id is `kept`, telling every instance
    /// (as ``delete(id:)`` does); returns the ids of those it deleted.
    func deleteSessions(of user: UserID, except kept: [UInt8]?) async throws(StoreError) -> [[UInt8]]
    /// The hash of `user`'s password; nil when there is none (no such account, or a sign-up cut
    /// short between its journal entry and its hash).
    func passwordHash(of user: UserID) async throws(StoreError) -> PasswordHash?
    /// Keeps `hash` as `user`'s password from now on; every mail link of theirs dies with the
    /// old one, in the same transaction (SPEC.md "Mail links").
    func setPasswordHash(_ hash: PasswordHash, of user: UserID) async throws(StoreError)
    /// Replaces `user`'s password hash with `new` only while it is still `checked`, the one the
    /// caller verified the current password against, in one statement; false, changing nothing,
    /// once another change (or a deletion) came first. So a change whose check began before
    /// another's never overwrites it (issue 29: nor can a stolen session holding the old
    /// password take the account back from its owner's change). A replacement kills every mail
    /// link of theirs in the same transaction.
    func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) async throws(StoreError) -> Bool
    /// Forgets every secret of `user`'s, in one transaction: their password hash, their email
    /// addresses, their mail links and the mail about them not yet sent (``MailStorage``). Their
    /// account was deleted.
    func deleteSecrets(of user: UserID) async throws(StoreError)
    /// Every account with a session or a password hash here, each once, in no order: what start-up
    /// compares with the book, to erase what a deletion cut short left behind.
    func storedAccountIDs() async throws(StoreError) -> [UserID]
    /// The secret called `name`, created with `make` and kept the first time it is asked for.
    func secret(named name: String, orCreate make: @Sendable () -> [UInt8]) async throws(StoreError) -> [UInt8]
    /// Tells `handler` whenever a session may have ended elsewhere, for a cache of sessions to
    /// stay true: first, at once, whether caching is safe now (``SessionStorageEvent/following``
    /// or ``SessionStorageEvent/interrupted``), then every event as it comes, in order.
    ///
    /// `handler` runs on the storage's thread, one event at a time, and must return quickly
    /// without calling the storage. Storage that one process owns uses the default: caching is
    /// always safe, since every ending goes through that process's own cache.
    func observeSessionEvents(_ handler: @escaping @Sendable (SessionStorageEvent) -> Void)
}

/// What storage shared by several instances tells a session cache (``SessionStorage/observeSessionEvents(_:)``).
package enum SessionStorageEvent: Sendable, Equatable {
    /// The session with this id (token hash) was deleted, by any instance: signed out or expired.
    case ended(id: [UInt8])
    /// Endings may go unheard from now (the listener lost its connection): forget every cached
    /// session and cache none until ``following``.
    case interrupted
    /// Endings are heard from now on: caching is safe (what was cached before is forgotten).
    case following
}

extension SessionStorage {
    /// For storage one process owns: caching is safe, and no ending ever happens elsewhere.
    package func observeSessionEvents(_ handler: @escaping @Sendable (SessionStorageEvent) -> Void) {
        handler(.following)
    }
}

/// A stored photo: bytes named by their SHA-256 (hex), with the image type they were sniffed as.
package struct StoredPhoto: Sendable, Equatable {
    package var reference: PhotoReference
    package var bytes: [UInt8]

    package init(reference: PhotoReference, bytes: [UInt8]) {
        self.reference = reference
        self.bytes = bytes
    }
}

/// Content-addressed photo bytes; the journal refers to them by hash, and they are deleted once
/// nothing does.
///
/// The journal is the only record of who refers to a photo, and it is written apart from this
/// storage (another connection, or another process), so a photo's bytes are kept while either
/// could still be needed:
/// - an upload *claims* the photo when it stores it (``save(_:)``), before its action refers to
///   it, and *releases* the claim once the action was applied or refused
///   (``release(hash:referencedThrough:)``), recording the journal entry it was applied through;
/// - ``delete(hash:unreferencedThrough:abandoningClaimsOlderThan:)`` is asked by a caller that
///   has seen, in the state through some journal entry, that nobody refers to the photo. It
///   deletes only when no claim is open and no reference was recorded after that entry (the
///   caller's state may lag another instance's), checked and deleted atomically against claims.
/// A claim that is never released (a process killed mid-upload) counts for a while only.
package protocol PhotoStorage: DeletionSettling {
    /// Stores `photo` (storing the same bytes twice keeps one copy) and claims it for the upload
    /// in flight: until the claim is released, no deletion takes it.
    func save(_ photo: StoredPhoto) async throws(StoreError)
    func photo(hash: String) async throws(StoreError) -> StoredPhoto?
    /// Ends one claim ``save(_:)`` made on `hash`. `sequence`: the journal entry through which the
    /// action referring to the photo was applied (a later deletion must have seen it); nil when
    /// the action was refused or failed.
    func release(hash: String, referencedThrough sequence: Int64?) async throws(StoreError)
    /// Deletes photo `hash`, which the caller's state through journal entry `sequence` shows no
    /// one referring to, unless an upload claims it (a claim made `abandoningClaimsOlderThan`
    /// seconds ago or earlier, by the database's clock, no longer counts: 0 counts none) or a
    /// reference after `sequence` was recorded; true when deleted.
    func delete(hash: String, unreferencedThrough sequence: Int64, abandoningClaimsOlderThan seconds: Double) async throws(StoreError)
        -> Bool
    /// The hash of every photo stored, referred to or not (for a sweep of the unreferenced).
    func storedHashes() async throws(StoreError) -> [String]
}

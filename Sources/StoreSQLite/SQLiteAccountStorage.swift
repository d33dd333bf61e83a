import Basics
package import Foundation
package import Store

/// Sessions, secrets and photos (with what keeps each photo, see ``PhotoStorage``) in the SQLite
/// database beside the journal, through a connection of their own.
///
/// Ownership: the connection is touched only by this actor, which runs on its own serial
/// dispatch queue, so SQLite's blocking calls never hold a cooperative-pool thread or an event
/// loop. The journal's writes and these contend only for SQLite's write lock (busy timeout 5 s).
/// Photos are read through a ``SQLiteReader`` of their own, so that a crowd reading large photos
/// never queues the session look-ups every signed-in page makes (a private `:memory:` database
/// has no second connection and reads them here).
package actor SQLiteAccountStorage: SessionStorage, PhotoStorage {
    private let executor = DispatchQueueExecutor(label: "quotebook.accounts")
    private let connection: SQLiteConnection
    private let photoReader: SQLiteReader?
    private var isClosed = false

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Opens the database at `path` (normally the journal's file; `:memory:` makes a private one).
    package init(path: String) throws(StoreError) {
        connection = try QuotebookDatabase.open(path: path)
        photoReader = path == ":memory:" ? nil : SQLiteReader(
                path: path, label: "quotebook.photos", closedError: { .accountStorageClosed(operation: $0) })
    }

    /// Whose sessions the existing database at `path` holds (one user id a session) and which
    /// photos it stores, read without a lock or a write (``QuotebookDatabase/openForReading(path:)``):
    /// what `quotebook check` compares with the replayed journal.
    package static func accountTables(readingPath path: String) throws(StoreError) -> (sessionUserIDs: [UserID], photoHashes: [String]) {
        let connection = try QuotebookDatabase.openForReading(path: path)
        defer { connection.close() }
        let users = try connection.prepare("SELECT user_id FROM session").rows { UserID(Int($0.int(at: 0))) }
        let photos = try connection.prepare("SELECT hash FROM photo").rows { $0.text(at: 0) }
        return (users, photos)
    }

    /// One statement, on the one connection that also changes passwords: atomic with every change.
    package func insert(_ session: SessionRecord, ifPasswordIs hash: PasswordHash?) throws(StoreError) -> Bool {
        let connection = try open(for: "insert session")
        let insert = try connection.prepare(
            """
            INSERT INTO session (id, user_id, created_at, last_used_at, user_agent)
            SELECT ?1, ?2, ?3, ?4, ?5 WHERE (SELECT hash FROM password WHERE user_id = ?2) IS ?6
            """)
        try insert.run([
            .blob(session.id), .integer(Int64(session.userID.rawValue)),
            .real(session.createdAt.timeIntervalSince1970), .real(session.lastUsedAt.timeIntervalSince1970),
            session.userAgent.map { .text($0) } ?? .null, hash.map { .text($0.encoded) } ?? .null,
        ])
        return connection.changes == 1
    }

    package func session(id: [UInt8]) throws(StoreError) -> SessionRecord? {
        let select = try open(for: "read session").prepare(
            "SELECT id, user_id, created_at, last_used_at, user_agent FROM session WHERE id = ?")
        return try select.rows([.blob(id)], Self.session).first
    }

    package func sessions(of user: UserID) throws(StoreError) -> [SessionRecord] {
        let select = try open(for: "list sessions").prepare(
            "SELECT id, user_id, created_at, last_used_at, user_agent FROM session WHERE user_id = ? ORDER BY created_at, id")
        return try select.rows([.integer(Int64(user.rawValue))], Self.session)
    }

    private static func session(_ row: SQLiteStatement) -> SessionRecord {
        SessionRecord(
            id: row.blob(at: 0), userID: UserID(Int(row.int(at: 1))),
            createdAt: Date(timeIntervalSince1970: row.real(at: 2)),
            lastUsedAt: Date(timeIntervalSince1970: row.real(at: 3)),
            userAgent: row.isNull(at: 4) ? nil : row.text(at: 4)
        )
    }

    package func deleteSessions(of user: UserID, except kept: [UInt8]?) throws(StoreError) -> [[UInt8]] {
        let connection = try open(for: "delete sessions of a person")
        return try connection.transaction { () throws(StoreError) -> [[UInt8]] in
            let ids = try connection.prepare("SELECT id FROM session WHERE user_id = ?")
                .rows([.integer(Int64(user.rawValue))]) { $0.blob(at: 0) }
                .filter { $0 != kept }
            let delete = try connection.prepare("DELETE FROM session WHERE id = ?")
            for id in ids { try delete.run([.blob(id)]) }
            return ids
        }
    }

    package func passwordHash(of user: UserID) throws(StoreError) -> PasswordHash? {
        try open(for: "read password hash").prepare("SELECT hash FROM password WHERE user_id = ?")
            .rows([.integer(Int64(user.rawValue))]) { PasswordHash(encoded: $0.text(at: 0)) }.first
    }

    /// The hash and the death of every mail link of the person's, in one transaction.
    package func setPasswordHash(_ hash: PasswordHash, of user: UserID) throws(StoreError) {
        let connection = try open(for: "set password hash")
        try connection.transaction { () throws(StoreError) in
            try connection.prepare(
                "INSERT INTO password (user_id, hash) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash"
            ).run([.integer(Int64(user.rawValue)), .text(hash.encoded)])
            try Self.deleteTokens(of: user, on: connection)
        }
    }

    package func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) throws(StoreError) -> Bool {
        let connection = try open(for: "replace password hash")
        return try connection.transaction { () throws(StoreError) -> Bool in
            try connection.prepare("UPDATE password SET hash = ? WHERE user_id = ? AND hash = ?")
                .run([.text(new.encoded), .integer(Int64(user.rawValue)), .text(checked.encoded)])
            guard connection.changes == 1 else { return false }
            try Self.deleteTokens(of: user, on: connection)
            return true
        }
    }

    /// One transaction: the hash, the addresses (and reset requests naming them), links,
    /// unsent mail and mail allowance of the person.
    package func deleteSecrets(of user: UserID) throws(StoreError) {
        let connection = try open(for: "delete secrets")
        let id = SQLiteStatement.Value.integer(Int64(user.rawValue))
        try connection.transaction { () throws(StoreError) in
            try connection.prepare("DELETE FROM password WHERE user_id = ?").run([id])
            try connection.prepare(
                """
                DELETE FROM reset_request WHERE lower(address) IN (
                    SELECT lower(verified) FROM email WHERE user_id = ?1 UNION SELECT lower(pending) FROM email WHERE user_id = ?1)
                """
            ).run([id])
            try connection.prepare("DELETE FROM email WHERE user_id = ?").run([id])
            try Self.deleteTokens(of: user, on: connection)
            try connection.prepare("DELETE FROM outbox WHERE user_id = ?").run([id])
            try connection.prepare("DELETE FROM mail_allowance WHERE key = ?").run([.text(MailAllowance.accountKey(user))])
        }
    }

    /// Checkpoints the WAL in TRUNCATE mode (``DeletionSettling/settleDeletions()``): without it
    /// the database file kept a deleted account's email rows and photo pages, as they were, until
    /// the next automatic checkpoint, or for good after a crash. Waits at most 100 ms for a
    /// reader (a backup in progress); false when one held it up, and the old pages then stay in
    /// the WAL until the next full checkpoint or the close.
    package func settleDeletions() -> Bool {
        guard let connection = try? open(for: "settle deletions") else { return false }
        return connection.checkpointTruncating(waitingAtMost: 100)
    }

    package func storedAccountIDs() throws(StoreError) -> [UserID] {
        try open(for: "list accounts").prepare("SELECT user_id FROM session UNION SELECT user_id FROM password UNION SELECT user_id FROM email")
            .rows { UserID(Int($0.int(at: 0))) }
    }

    package func touch(id: [UInt8], at date: Date) throws(StoreError) {
        let update = try open(for: "touch session").prepare("UPDATE session SET last_used_at = ? WHERE id = ?")
        try update.run([.real(date.timeIntervalSince1970), .blob(id)])
    }

    package func delete(id: [UInt8]) throws(StoreError) {
        try open(for: "delete session").prepare("DELETE FROM session WHERE id = ?").run([.blob(id)])
    }

    package func deleteSessions(unusedSince cutoff: Date) throws(StoreError) -> Int {
        let connection = try open(for: "delete unused sessions")
        try connection.prepare("DELETE FROM session WHERE last_used_at < ?").run([.real(cutoff.timeIntervalSince1970)])
        return connection.changes
    }

    package func secret(named name: String, orCreate make: @Sendable () -> [UInt8]) throws(StoreError) -> [UInt8] {
        let connection = try open(for: "read secret")
        return try connection.transaction { () throws(StoreError) -> [UInt8] in
            let select = try connection.prepare("SELECT value FROM secret WHERE name = ?")
            if let value = try select.rows([.text(name)], { $0.blob(at: 0) }).first { return value }
            let value = make()
            try connection.prepare("INSERT INTO secret (name, value) VALUES (?, ?)").run([.text(name), .blob(value)])
            return value
        }
    }

    /// The photo and its claim in one transaction; the bytes are written only when new.
    package func save(_ photo: StoredPhoto) throws(StoreError) {
        let connection = try open(for: "save photo")
        try connection.transaction { () throws(StoreError) in
            try connection.prepare(
                """
                INSERT INTO photo_use (hash, claims, claimed_at) VALUES (?, 1, \(Self.now))
                ON CONFLICT (hash) DO UPDATE SET claims = claims + 1, claimed_at = excluded.claimed_at
                """
            ).run([.text(photo.reference.hash)])
            try connection.prepare("INSERT OR IGNORE INTO photo (hash, media_type, bytes) VALUES (?, ?, ?)").run([
                .text(photo.reference.hash), .text(photo.reference.mediaType), .blob(photo.bytes),
            ])
        }
    }

    package nonisolated func photo(hash: String) async throws(StoreError) -> StoredPhoto? {
        guard let photoReader else { return try await photoHere(hash: hash) }
        return try await photoReader.read("read photo") { connection throws(StoreError) in
            try Self.photo(hash: hash, on: connection)
        }
    }

    private func photoHere(hash: String) throws(StoreError) -> StoredPhoto? {
        try Self.photo(hash: hash, on: try open(for: "read photo"))
    }

    private static func photo(hash: String, on connection: SQLiteConnection) throws(StoreError) -> StoredPhoto? {
        let select = try connection.prepare("SELECT media_type, bytes FROM photo WHERE hash = ?")
        return try select.rows([.text(hash)]) { row in
            StoredPhoto(reference: PhotoReference(hash: hash, mediaType: row.text(at: 0)), bytes: row.blob(at: 1))
        }.first
    }

    package func release(hash: String, referencedThrough sequence: Int64?) throws(StoreError) {
        try open(for: "release photo").prepare(
            "UPDATE photo_use SET claims = max(claims - 1, 0), referenced_through = max(referenced_through, ?) WHERE hash = ?"
        ).run([.integer(sequence ?? 0), .text(hash)])
    }

    /// One transaction: the checks and both rows. The connection is this actor's alone, so no
    /// claim can come between.
    package func delete(hash: String, unreferencedThrough sequence: Int64, abandoningClaimsOlderThan seconds: Double) throws(StoreError)
        -> Bool
    {
        let connection = try open(for: "delete photo")
        return try connection.transaction { () throws(StoreError) -> Bool in
            try connection.prepare(
                """
                DELETE FROM photo_use WHERE hash = ? AND referenced_through <= ?
                AND (claims = 0 OR claimed_at <= \(Self.now) - ?)
                """
            ).run([.text(hash), .integer(sequence), .real(seconds)])
            // Its use row is gone now exactly when nothing keeps it (a photo without one has no
            // claim and no recorded reference: the migration gave every photo one).
            try connection.prepare("DELETE FROM photo WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM photo_use WHERE hash = ?)")
                .run([.text(hash), .text(hash)])
            return connection.changes > 0
        }
    }

    package func storedHashes() throws(StoreError) -> [String] {
        try open(for: "list photos").prepare("SELECT hash FROM photo").rows { $0.text(at: 0) }
    }

    /// The database's clock, in seconds since 1970 (https://sqlite.org/lang_datefunc.html).
    private static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    /// Closes the connection; later calls throw ``StoreError/accountStorageClosed(operation:)``.
    /// Close this before the journal, so that the journal's connection is the last and its close
    /// checkpoints the WAL.
    package func close() async {
        guard !isClosed else { return }
        isClosed = true
        await photoReader?.close()
        connection.close()
    }

    /// The connection for `operation`, unless ``close()`` has been called.
    func open(for operation: String) throws(StoreError) -> SQLiteConnection {
        guard !isClosed else { throw StoreError.accountStorageClosed(operation: operation) }
        return connection
    }
}

package import Foundation
package import Store
import Synchronization

/// Sessions, secrets, photos and sign-in failures in PostgreSQL, shared by every instance that uses the database
/// (SPEC.md "Data": a session is the same whichever instance a request reaches). Same semantics
/// as ``SQLiteAccountStorage``; times are stored as `double precision` seconds since 1970, so a
/// `Date` comes back exactly as it went in.
///
/// Ownership: each ``PostgresClient`` owns one connection on its own serial queue, so no call
/// blocks the cooperative pool: one for sessions, secrets and sign-in failures, one for photos (a
/// 2 MiB photo never holds up a session read). The process's ``PostgresListener`` (a third
/// connection and a thread, shared with the journal) hears every instance's session deletions
/// (``channel``), which this storage relays to the session caches (``observeSessionEvents(_:)``). Every statement is parameterised; the schema
/// name, the one identifier spliced into SQL, is quoted.
package final class PostgresAccountStorage: SessionStorage, PhotoStorage, Sendable {
    /// Where the tables are: `public` in production, a fresh schema per test.
    package let schema: String
    let sessions: PostgresClient
    private let photos: PostgresClient
    let tables: Tables
    /// The NOTIFY channel a deleted session's id (hex) is sent on (``channel(forSchema:)``).
    package let channel: String
    /// Not following until the listener's first word, which comes before `init` returns.
    private let relay = SessionEventRelay(isFollowing: false)
    private let listener: PostgresListener
    /// True when ``listener`` is this storage's own, stopped at ``close()``.
    private let ownsListener: Bool
    private let follower: PostgresListener.Follower
    private let isClosed = Mutex(false)
    /// When this instance last deleted attempts that no longer count or lock, by namespace.
    let lastFailurePurge = Mutex<[String: Date]>([:])

    /// Connects to `url`, creates or migrates the tables in `schema` (created when missing), and
    /// returns once it listens for session deletions.
    ///
    /// - Parameters:
    ///   - schema: 1 to 40 bytes, so the channel named after it fits PostgreSQL's 63-byte limit.
    ///   - listener: the process's listener, to hear deletions on; nil: one of its own.
    /// - Throws: ``StoreError/postgres(operation:sqlState:message:)`` when the server cannot be
    ///   reached or refuses; ``StoreError/newerSchema(path:version:)`` for a newer schema.
    package init(
        url: PostgresURL, schema: String = "public", policy: PostgresReconnectPolicy = .standard, listener: PostgresListener? = nil
    ) async throws(StoreError) {
        try PostgresSchemaMigrator.checkSchemaName(schema, opening: "account storage")
        self.schema = schema
        tables = Tables(schema: schema)
        sessions = PostgresClient(url: url, policy: policy, label: "quotebook.accounts")
        photos = PostgresClient(url: url, policy: policy, label: "quotebook.photos")
        let migrator = PostgresSchemaMigrator(component: "accounts", migrations: Self.migrations)
        try await sessions.withConnection { connection throws(StoreError) in try migrator.migrate(connection, schema: schema) }
        channel = Self.channel(forSchema: schema)
        let following = listener ?? PostgresListener(url: url, policy: policy)
        self.listener = following
        ownsListener = listener == nil
        follower = await following.follow(channel) { [relay] event in
            for sessionEvent in Self.sessionEvents(for: event) { relay.deliver(sessionEvent) }
        }
    }

    /// Where session deletions are announced: `quotebook_sessions`, or
    /// `quotebook_sessions_<schema>` for a schema other than `public`.
    package static func channel(forSchema schema: String) -> String {
        PostgresSchemaMigrator.channel("sessions", forSchema: schema)
    }

    /// One statement. `FOR SHARE` locks the hash's row while it is compared: a change of the
    /// password under way makes it wait and then compare the new hash (READ COMMITTED re-reads
    /// the locked row's newest version), and a change arriving meanwhile waits for this insert to
    /// commit, so the sessions it then deletes include this one.
    package func insert(_ session: SessionRecord, ifPasswordIs hash: PasswordHash?) async throws(StoreError) -> Bool {
        let rows = try await query(
            "insert session", on: sessions,
            """
            INSERT INTO \(tables.session) (id, user_id, created_at, last_used_at, user_agent)
            SELECT $1::bytea, $2::bigint, $3::double precision, $4::double precision, $5::text
            WHERE (SELECT hash FROM \(tables.password) WHERE user_id = $2::bigint FOR SHARE) IS NOT DISTINCT FROM $6::text
            RETURNING id
            """,
            [
                PostgresBytea.encode(session.id), String(session.userID.rawValue), Self.seconds(session.createdAt),
                Self.seconds(session.lastUsedAt), session.userAgent, hash?.encoded,
            ]
        ).rows
        return rows.count == 1
    }

    package func session(id: [UInt8]) async throws(StoreError) -> SessionRecord? {
        let rows = try await query(
            "read session", on: sessions, "SELECT \(Self.sessionColumns) FROM \(tables.session) WHERE id = $1",
            [PostgresBytea.encode(id)]
        ).rows
        return try rows.first.map(Self.session)
    }

    package func touch(id: [UInt8], at date: Date) async throws(StoreError) {
        try await query(
            "touch session", on: sessions, "UPDATE \(tables.session) SET last_used_at = $1 WHERE id = $2",
            [Self.seconds(date), PostgresBytea.encode(id)])
    }

    /// Deletes the session and, in the same statement, tells every instance (the NOTIFY is sent
    /// when the deletion commits).
    package func delete(id: [UInt8]) async throws(StoreError) {
        try await query(
            "delete session", on: sessions,
            "WITH ended AS (DELETE FROM \(tables.session) WHERE id = $1 RETURNING id) SELECT pg_notify($2, encode(id, 'hex')) FROM ended",
            [PostgresBytea.encode(id), channel])
    }

    package func deleteSessions(unusedSince cutoff: Date) async throws(StoreError) -> Int {
        try await query(
            "delete unused sessions", on: sessions,
            """
            WITH ended AS (DELETE FROM \(tables.session) WHERE last_used_at < $1 RETURNING id)
            SELECT pg_notify($2, encode(id, 'hex')) FROM ended
            """, [Self.seconds(cutoff), channel]
        ).rows.count
    }

    package func observeSessionEvents(_ handler: @escaping @Sendable (SessionStorageEvent) -> Void) {
        relay.observe(handler)
    }

    /// What a listener's event means to session caches: a notification names an ended session;
    /// one that does not parse is treated as a lost connection (forget everything).
    static func sessionEvents(for event: PostgresListener.Event) -> [SessionStorageEvent] {
        switch event {
        case .listening: return [.following]
        case .interrupted: return [.interrupted]
        case .notification(let notification):
            guard let id = PostgresBytea.decode("\\x" + notification.payload) else { return [.interrupted, .following] }
            return [.ended(id: id)]
        case .quiet: return []
        }
    }

    /// Instances starting together may each make a value; the first to insert wins and every one
    /// returns the winner.
    package func secret(named name: String, orCreate make: @Sendable () -> [UInt8]) async throws(StoreError) -> [UInt8] {
        let select = "SELECT value FROM \(tables.secret) WHERE name = $1"
        if let value = try await query("read secret", on: sessions, select, [name]).rows.first?.bytes(at: 0) { return value }
        try await query(
            "create secret", on: sessions, "INSERT INTO \(tables.secret) (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            [name, PostgresBytea.encode(make())])
        guard let value = try await query("read secret", on: sessions, select, [name]).rows.first?.bytes(at: 0) else {
            throw Self.missing("secret")
        }
        return value
    }

    /// One transaction, the claim first: its row lock orders it against a deletion of the same
    /// photo (which deletes that row first), so either the deletion sees the claim and keeps the
    /// photo, or it is over and the bytes are inserted again here
    /// (https://www.postgresql.org/docs/15/transaction-iso.html#XACT-READ-COMMITTED).
    package func save(_ photo: StoredPhoto) async throws(StoreError) {
        let tables = self.tables
        try await transaction("save photo") { connection throws(StoreError) in
            try connection.query(
                """
                INSERT INTO \(tables.photoUse) (hash, claims, claimed_at) VALUES ($1, 1, extract(epoch FROM clock_timestamp()))
                ON CONFLICT (hash) DO UPDATE SET claims = photo_use.claims + 1, claimed_at = excluded.claimed_at
                """, [photo.reference.hash])
            try connection.query(
                "INSERT INTO \(tables.photo) (hash, media_type, bytes) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING",
                [photo.reference.hash, photo.reference.mediaType, PostgresBytea.encode(photo.bytes)])
        }
    }

    package func photo(hash: String) async throws(StoreError) -> StoredPhoto? {
        let rows = try await query(
            "read photo", on: photos, "SELECT media_type, bytes FROM \(tables.photo) WHERE hash = $1", [hash]
        ).rows
        guard let row = rows.first else { return nil }
        guard let mediaType = row.string(at: 0), let bytes = try row.bytes(at: 1) else { throw Self.missing("photo") }
        return StoredPhoto(reference: PhotoReference(hash: hash, mediaType: mediaType), bytes: bytes)
    }

    package func release(hash: String, referencedThrough sequence: Int64?) async throws(StoreError) {
        try await query(
            "release photo", on: photos,
            """
            UPDATE \(tables.photoUse) SET claims = greatest(claims - 1, 0), referenced_through = greatest(referenced_through, $2::bigint)
            WHERE hash = $1
            """, [hash, String(sequence ?? 0)])
    }

    /// One statement: the use row goes first, and only when nothing keeps the photo (a claim
    /// that came meanwhile holds the row's lock, and the condition is checked again on the row it
    /// left), then the bytes with it.
    package func delete(hash: String, unreferencedThrough sequence: Int64, abandoningClaimsOlderThan seconds: Double)
        async throws(StoreError) -> Bool
    {
        let deleted = try await query(
            "delete photo", on: photos,
            """
            WITH unused AS (
                DELETE FROM \(tables.photoUse) WHERE hash = $1 AND referenced_through <= $2::bigint
                AND (claims = 0 OR claimed_at <= extract(epoch FROM clock_timestamp()) - $3::double precision)
                RETURNING hash
            )
            DELETE FROM \(tables.photo) WHERE hash IN (SELECT hash FROM unused) RETURNING hash
            """, [hash, String(sequence), String(seconds)])
        return !deleted.rows.isEmpty
    }

    /// The user id of every session (one a session), for `quotebook check`.
    package func sessionUserIDs() async throws(StoreError) -> [UserID] {
        try await query("list sessions", on: sessions, "SELECT user_id FROM \(tables.session)", []).rows.compactMap {
            $0.string(at: 0).flatMap { Int($0) }.map { UserID($0) }
        }
    }

    /// Nothing to do: PostgreSQL's deleted rows leave its files when its own vacuum reuses
    /// their space (``DeletionSettling/settleDeletions()``).
    package func settleDeletions() async -> Bool { true }

    package func storedHashes() async throws(StoreError) -> [String] {
        try await query("list photos", on: photos, "SELECT hash FROM \(tables.photo)", []).rows.compactMap { $0.string(at: 0) }
    }

    /// Closes the connections; later calls throw ``StoreError/accountStorageClosed(operation:)``.
    package func close() async {
        let wasClosed = isClosed.withLock { isClosed in
            defer { isClosed = true }
            return isClosed
        }
        guard !wasClosed else { return }
        listener.unfollow(follower)
        if ownsListener { listener.stop() }
        await sessions.close()
        await photos.close()
    }

    /// Runs `body` in one transaction on the photos' connection as `operation`, unless
    /// ``close()`` has been called.
    private func transaction(_ operation: String, _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> Void)
        async throws(StoreError)
    {
        guard !isClosed.withLock({ $0 }) else { throw StoreError.accountStorageClosed(operation: operation) }
        do {
            try await photos.withConnection { connection throws(StoreError) in
                try connection.transaction { () throws(StoreError) in try body(connection) }
            }
        } catch {
            if error.isClosedConnection { throw StoreError.accountStorageClosed(operation: operation) }
            throw error
        }
    }

    /// Runs `body` in one transaction on the sessions' connection (where password hashes, mail
    /// and sessions are changed) as `operation`, unless ``close()`` has been called.
    func sessionsTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        guard !isClosed.withLock({ $0 }) else { throw StoreError.accountStorageClosed(operation: operation) }
        do {
            return try await sessions.withConnection { connection throws(StoreError) -> T in
                try connection.transaction { () throws(StoreError) -> T in try body(connection) }
            }
        } catch {
            if error.isClosedConnection { throw StoreError.accountStorageClosed(operation: operation) }
            throw error
        }
    }

    /// Runs `sql` on `client` as `operation`, unless ``close()`` has been called.
    @discardableResult
    func query(
        _ operation: String, on client: PostgresClient, _ sql: String, _ parameters: [String?]
    ) async throws(StoreError) -> PostgresResult {
        guard !isClosed.withLock({ $0 }) else { throw StoreError.accountStorageClosed(operation: operation) }
        do {
            return try await client.query(sql, parameters)
        } catch {
            if error.isClosedConnection { throw StoreError.accountStorageClosed(operation: operation) }
            throw error
        }
    }

    /// `date` as a `double precision` parameter: Swift's shortest text that reads back exactly.
    static func seconds(_ date: Date) -> String {
        String(date.timeIntervalSince1970)
    }

    /// The `double precision` seconds in `column` as a date.
    static func date(_ row: PostgresRow, at column: Int) throws(StoreError) -> Date {
        guard let seconds = row.string(at: column).flatMap(Double.init) else { throw missing("a time in column \(column)") }
        return Date(timeIntervalSince1970: seconds)
    }

    static func missing(_ what: String) -> StoreError {
        StoreError.postgres(operation: "read account storage", sqlState: nil, message: "\(what) is missing or malformed")
    }
}

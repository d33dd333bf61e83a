package import Store

/// A person's sessions and changed password hash (``SessionStorage``).
extension PostgresAccountStorage {
    /// The columns ``session(_:)`` reads, in its order.
    static let sessionColumns = "id, user_id, created_at, last_used_at, user_agent"

    /// A session row selected as ``sessionColumns``.
    static func session(_ row: PostgresRow) throws(StoreError) -> SessionRecord {
        guard let id = try row.bytes(at: 0) else { throw missing("session id") }
        guard let user = try row.int64(at: 1) else { throw missing("user_id") }
        return SessionRecord(
            id: id, userID: UserID(Int(user)), createdAt: try date(row, at: 2), lastUsedAt: try date(row, at: 3),
            userAgent: row.string(at: 4))
    }

    package func sessions(of user: UserID) async throws(StoreError) -> [SessionRecord] {
        let rows = try await query(
            "list sessions", on: sessions,
            "SELECT \(Self.sessionColumns) FROM \(tables.session) WHERE user_id = $1 ORDER BY created_at, id",
            [String(user.rawValue)]
        ).rows
        var records: [SessionRecord] = []
        for row in rows { records.append(try Self.session(row)) }
        return records
    }

    /// One statement: every instance is told of each deletion when it commits, as ``delete(id:)`` does.
    package func deleteSessions(of user: UserID, except kept: [UInt8]?) async throws(StoreError) -> [[UInt8]] {
        let rows = try await query(
            "delete sessions of a person", on: sessions,
            """
            WITH ended AS (
                DELETE FROM \(tables.session) WHERE user_id = $1 AND ($2::bytea IS NULL OR id <> $2::bytea) RETURNING id
            )
            SELECT id, pg_notify($3, encode(id, 'hex')) FROM ended
            """, [String(user.rawValue), kept.map(PostgresBytea.encode), channel]
        ).rows
        var ids: [[UInt8]] = []
        for row in rows {
            guard let id = try row.bytes(at: 0) else { throw Self.missing("session id") }
            ids.append(id)
        }
        return ids
    }

    package func passwordHash(of user: UserID) async throws(StoreError) -> PasswordHash? {
        try await query(
            "read password hash", on: sessions, "SELECT hash FROM \(tables.password) WHERE user_id = $1", [String(user.rawValue)]
        ).rows.first?.string(at: 0).map(PasswordHash.init(encoded:))
    }

    /// The hash and the death of every mail link of the person's, in one transaction.
    package func setPasswordHash(_ hash: PasswordHash, of user: UserID) async throws(StoreError) {
        let tables = self.tables
        try await sessionsTransaction("set password hash") { connection throws(StoreError) in
            try connection.query(
                """
                INSERT INTO \(tables.password) (user_id, hash) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash
                """, [String(user.rawValue), hash.encoded])
            try connection.query("DELETE FROM \(tables.mailToken) WHERE user_id = $1", [String(user.rawValue)])
        }
    }

    /// One statement for the hash: a concurrent change holds the row until it commits, and READ
    /// COMMITTED then re-checks the `WHERE` on the row as it committed, so of two changes that
    /// checked the same hash, only the first to reach the row replaces it. The person's mail
    /// links die in the same transaction.
    package func replacePasswordHash(of user: UserID, checked: PasswordHash, with new: PasswordHash) async throws(StoreError) -> Bool {
        let tables = self.tables
        return try await sessionsTransaction("replace password hash") { connection throws(StoreError) -> Bool in
            let replaced = try connection.query(
                "UPDATE \(tables.password) SET hash = $1 WHERE user_id = $2 AND hash = $3 RETURNING user_id",
                [new.encoded, String(user.rawValue), checked.encoded]
            ).rows.count == 1
            if replaced { try connection.query("DELETE FROM \(tables.mailToken) WHERE user_id = $1", [String(user.rawValue)]) }
            return replaced
        }
    }

    /// One transaction: the hash, the addresses (and reset requests naming them), links, unsent
    /// mail and mail allowance of the person.
    package func deleteSecrets(of user: UserID) async throws(StoreError) {
        let tables = self.tables
        let id = String(user.rawValue)
        try await sessionsTransaction("delete secrets") { connection throws(StoreError) in
            try connection.query("DELETE FROM \(tables.password) WHERE user_id = $1", [id])
            try connection.query(
                """
                DELETE FROM \(tables.resetRequest) WHERE lower(address) IN (
                    SELECT lower(verified) FROM \(tables.email) WHERE user_id = $1
                    UNION SELECT lower(pending) FROM \(tables.email) WHERE user_id = $1)
                """, [id])
            try connection.query("DELETE FROM \(tables.email) WHERE user_id = $1", [id])
            try connection.query("DELETE FROM \(tables.mailToken) WHERE user_id = $1", [id])
            try connection.query("DELETE FROM \(tables.outbox) WHERE user_id = $1", [id])
            try connection.query("DELETE FROM \(tables.mailAllowance) WHERE key = $1", [MailAllowance.accountKey(user)])
        }
    }

    package func storedAccountIDs() async throws(StoreError) -> [UserID] {
        let rows = try await query(
            "list accounts", on: sessions, "SELECT user_id FROM \(tables.session) UNION SELECT user_id FROM \(tables.password) UNION SELECT user_id FROM \(tables.email)", []
        ).rows
        var ids: [UserID] = []
        for row in rows {
            guard let id = row.string(at: 0).flatMap({ Int($0) }) else { throw Self.missing("account id") }
            ids.append(UserID(id))
        }
        return ids
    }
}

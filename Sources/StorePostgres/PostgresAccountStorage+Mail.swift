package import Foundation
package import Store

/// Email addresses, mail links and the outbox (``MailStorage``), shared by every instance: each
/// change and the mail it causes in one transaction on the sessions' connection, allowances
/// counted under a transaction-scoped advisory lock on their key (instances count one after the
/// other), and reset requests and due mail claimed with `FOR UPDATE SKIP LOCKED`, so each goes to
/// one instance (https://www.postgresql.org/docs/15/sql-select.html#SQL-FOR-UPDATE-SHARE).
///
/// Rows are locked in one order everywhere, so no two transactions wait for each other: the
/// person's `password` row, then their `email` row, then their tokens (as a change of password
/// and ``deleteSecrets(of:)`` take them).
extension PostgresAccountStorage: MailStorage {
    package func addresses(of user: UserID) async throws(StoreError) -> EmailAddresses {
        let rows = try await query(
            "read email", on: sessions, "SELECT verified, pending FROM \(tables.email) WHERE user_id = $1", [String(user.rawValue)]
        ).rows
        guard let row = rows.first else { return EmailAddresses() }
        return EmailAddresses(verified: row.string(at: 0), pending: row.string(at: 1))
    }

    package func requestAddress(
        _ address: String, of user: UserID, whilePasswordIs hash: PasswordHash, token: MailToken, mails: [String],
        allowance: MailAllowance, now: Date
    ) async throws(StoreError) -> MailQueueOutcome {
        let tables = self.tables
        let id = String(user.rawValue)
        return try await sessionsTransaction("request email address") { connection throws(StoreError) -> MailQueueOutcome in
            // Locked while this runs: a change of the password waits for it, and then kills the
            // link made here; one that came first is seen.
            let current = try connection.query("SELECT hash FROM \(tables.password) WHERE user_id = $1 FOR SHARE", [id]).rows
            guard current.first?.string(at: 0) == hash.encoded else { return .passwordChanged }
            if let wait = try Self.spend(allowance, now: now, on: connection, tables: tables) { return .limited(retryAfter: wait) }
            try connection.query(
                """
                INSERT INTO \(tables.email) (user_id, pending) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET pending = excluded.pending
                """, [id, address])
            try connection.query(
                "DELETE FROM \(tables.mailToken) WHERE user_id = $1 AND purpose = $2", [id, MailTokenPurpose.verifyAddress.rawValue])
            try Self.insert(token, of: user, address: address, on: connection, tables: tables)
            for mail in mails { try Self.queue(mail, about: user, now: now, on: connection, tables: tables) }
            return .queued
        }
    }

    package func tokenOwner(hash: [UInt8], purpose: MailTokenPurpose, now: Date) async throws(StoreError) -> UserID? {
        let rows = try await query(
            "read mail link", on: sessions,
            "SELECT user_id FROM \(tables.mailToken) WHERE hash = $1 AND purpose = $2 AND expires_at > $3",
            [PostgresBytea.encode(hash), purpose.rawValue, Self.seconds(now)]
        ).rows
        return try rows.first.flatMap { row throws(StoreError) in try row.int64(at: 0) }.map { UserID(Int($0)) }
    }

    package func verifyAddress(tokenHash: [UInt8], now: Date) async throws(StoreError) -> AddressVerification {
        let tables = self.tables
        return try await sessionsTransaction("verify email address") { connection throws(StoreError) -> AddressVerification in
            // The email row before the token, in the order erasure takes them.
            guard let owner = try Self.liveOwner(of: tokenHash, .verifyAddress, now: now, on: connection, tables: tables) else {
                return .deadToken
            }
            try connection.query("SELECT 1 FROM \(tables.email) WHERE user_id = $1 FOR UPDATE", [String(owner.rawValue)])
            guard let (user, address) = try Self.useToken(tokenHash, .verifyAddress, now: now, on: connection, tables: tables),
                let address
            else { return .deadToken }
            let key = address.lowercased()
            let id = String(user.rawValue)
            // Two accounts verifying one address at once: the second waits here, then sees the first.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 1))", ["verified:" + key])
            let holders = try connection.query(
                "SELECT user_id FROM \(tables.email) WHERE verified_key = $1 AND user_id <> $2", [key, id]
            ).rows
            guard holders.isEmpty else { return .takenByAnother }
            try connection.query(
                """
                UPDATE \(tables.email) SET verified = $1, verified_key = $2,
                    pending = CASE WHEN pending = $1 THEN NULL ELSE pending END
                WHERE user_id = $3
                """, [address, key, id])
            return .verified(user, address: address)
        }
    }

    package func requestReset(forAddress address: String, allowance: MailAllowance, now: Date) async throws(StoreError) -> MailQueueOutcome {
        let tables = self.tables
        return try await sessionsTransaction("request password reset") { connection throws(StoreError) -> MailQueueOutcome in
            if let wait = try Self.spend(allowance, now: now, on: connection, tables: tables) { return .limited(retryAfter: wait) }
            try connection.query(
                "INSERT INTO \(tables.resetRequest) (address, requested_at) VALUES ($1, $2)", [address, Self.seconds(now)])
            return .queued
        }
    }

    package func resolveResetRequests(
        now: Date, allowance: @escaping @Sendable (UserID) -> MailAllowance,
        compose: @escaping @Sendable (UserID, String) -> (token: MailToken, mail: String)?
    ) async throws(StoreError) -> Int {
        let tables = self.tables
        var queued = 0
        // One request a transaction, until none is left that another instance does not hold.
        while true {
            let outcome = try await sessionsTransaction("resolve password reset") { connection throws(StoreError) -> Int? in
                let taken = try connection.query(
                    """
                    DELETE FROM \(tables.resetRequest) WHERE id = (
                        SELECT id FROM \(tables.resetRequest) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
                    ) RETURNING address
                    """, []
                ).rows
                guard let address = taken.first?.string(at: 0) else { return nil }
                let owners = try connection.query(
                    "SELECT user_id, verified FROM \(tables.email) WHERE verified_key = $1", [address.lowercased()]
                ).rows
                guard let owner = try owners.first?.int64(at: 0), let verified = owners.first?.string(at: 1) else { return 0 }
                let user = UserID(Int(owner))
                guard try Self.spend(allowance(user), now: now, on: connection, tables: tables) == nil,
                    let (token, mail) = compose(user, verified)
                else { return 0 }
                try connection.query(
                    "DELETE FROM \(tables.mailToken) WHERE user_id = $1 AND purpose = $2",
                    [String(user.rawValue), MailTokenPurpose.resetPassword.rawValue])
                try Self.insert(token, of: user, address: nil, on: connection, tables: tables)
                try Self.queue(mail, about: user, now: now, on: connection, tables: tables)
                return 1
            }
            guard let outcome else { return queued }
            queued += outcome
        }
    }

    package func resetPassword(
        tokenHash: [UInt8], to hash: PasswordHash, now: Date, notice: @escaping @Sendable (UserID, String) -> String?
    ) async throws(StoreError) -> PasswordResetOutcome {
        let tables = self.tables
        let channel = self.channel
        return try await sessionsTransaction("reset password") { connection throws(StoreError) -> PasswordResetOutcome in
            // The password row before the token, in the order a change of password takes them.
            guard let owner = try Self.liveOwner(of: tokenHash, .resetPassword, now: now, on: connection, tables: tables) else {
                return .deadToken
            }
            try connection.query("SELECT 1 FROM \(tables.password) WHERE user_id = $1 FOR UPDATE", [String(owner.rawValue)])
            guard let (user, _) = try Self.useToken(tokenHash, .resetPassword, now: now, on: connection, tables: tables) else {
                return .deadToken
            }
            let id = String(user.rawValue)
            try connection.query(
                """
                INSERT INTO \(tables.password) (user_id, hash) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash
                """, [id, hash.encoded])
            try connection.query("DELETE FROM \(tables.mailToken) WHERE user_id = $1", [id])
            // Every instance is told of each ending when this commits, as deleteSessions does.
            let rows = try connection.query(
                """
                WITH ended AS (DELETE FROM \(tables.session) WHERE user_id = $1 RETURNING id)
                SELECT id, pg_notify($2, encode(id, 'hex')) FROM ended
                """, [id, channel]
            ).rows
            var ended: [[UInt8]] = []
            for row in rows {
                guard let session = try row.bytes(at: 0) else { throw Self.missing("session id") }
                ended.append(session)
            }
            let verified = try connection.query(
                "SELECT verified FROM \(tables.email) WHERE user_id = $1 AND verified IS NOT NULL", [id]
            ).rows.first?.string(at: 0)
            if let verified, let mail = notice(user, verified) { try Self.queue(mail, about: user, now: now, on: connection, tables: tables) }
            return .reset(user, endedSessions: ended)
        }
    }

    package func queueMail(_ mail: String, about user: UserID?, now: Date) async throws(StoreError) {
        let tables = self.tables
        try await sessionsTransaction("queue mail") { connection throws(StoreError) in
            try Self.queue(mail, about: user, now: now, on: connection, tables: tables)
        }
    }

    package func claimMail(now: Date, lease: TimeInterval, limit: Int) async throws(StoreError) -> [QueuedMail] {
        let tables = self.tables
        return try await sessionsTransaction("claim mail") { connection throws(StoreError) -> [QueuedMail] in
            try connection.query("DELETE FROM \(tables.mailToken) WHERE expires_at <= $1", [Self.seconds(now)])
            try connection.query("DELETE FROM \(tables.mailAllowance) WHERE at <= $1", [Self.seconds(now.addingTimeInterval(-3_600))])
            let rows = try connection.query(
                """
                UPDATE \(tables.outbox) SET claimed_until = $2 WHERE id IN (
                    SELECT id FROM \(tables.outbox)
                    WHERE next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
                    ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
                ) RETURNING id, message, attempts, queued_at
                """, [Self.seconds(now), Self.seconds(now.addingTimeInterval(lease)), String(limit)]
            ).rows
            var mails: [QueuedMail] = []
            for row in rows {
                guard let id = try row.int64(at: 0), let message = row.string(at: 1), let attempts = try row.int64(at: 2) else {
                    throw Self.missing("queued mail")
                }
                mails.append(
                    QueuedMail(
                        id: id, message: message, attempts: Int(attempts), queuedAt: try Self.date(row, at: 3),
                        claimedUntil: now.addingTimeInterval(lease)))
            }
            return mails.sorted { $0.id < $1.id }
        }
    }

    package func finishMail(_ mail: QueuedMail) async throws(StoreError) {
        try await query(
            "finish mail", on: sessions, "DELETE FROM \(tables.outbox) WHERE id = $1 AND claimed_until = $2",
            [String(mail.id), Self.seconds(mail.claimedUntil)])
    }

    package func retryMail(_ mail: QueuedMail, at date: Date) async throws(StoreError) {
        try await query(
            "retry mail", on: sessions,
            """
            UPDATE \(tables.outbox) SET attempts = attempts + 1, next_attempt_at = $1, claimed_until = NULL
            WHERE id = $2 AND claimed_until = $3
            """, [Self.seconds(date), String(mail.id), Self.seconds(mail.claimedUntil)])
    }

    /// Counts one mail against `allowance`, under a lock on its key for the transaction; the
    /// seconds until it has room again when it is spent (nothing counted then).
    private static func spend(
        _ allowance: MailAllowance, now: Date, on connection: PostgresConnection, tables: Tables
    ) throws(StoreError) -> TimeInterval? {
        try connection.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [allowance.key])
        let since = now.timeIntervalSince1970 - allowance.window
        let rows = try connection.query(
            "SELECT count(*), min(at) FROM \(tables.mailAllowance) WHERE key = $1 AND at > $2", [allowance.key, String(since)]
        ).rows
        let count = try rows.first?.int64(at: 0) ?? 0
        if count >= allowance.limit, let oldest = rows.first?.string(at: 1).flatMap(Double.init) {
            return max(1, (oldest + allowance.window - now.timeIntervalSince1970).rounded(.up))
        }
        try connection.query("INSERT INTO \(tables.mailAllowance) (key, at) VALUES ($1, $2)", [allowance.key, seconds(now)])
        return nil
    }

    /// Whose live token `hash` of `purpose` is, without locking it.
    private static func liveOwner(
        of hash: [UInt8], _ purpose: MailTokenPurpose, now: Date, on connection: PostgresConnection, tables: Tables
    ) throws(StoreError) -> UserID? {
        let rows = try connection.query(
            "SELECT user_id FROM \(tables.mailToken) WHERE hash = $1 AND purpose = $2 AND expires_at > $3",
            [PostgresBytea.encode(hash), purpose.rawValue, seconds(now)]
        ).rows
        return try rows.first.flatMap { row throws(StoreError) in try row.int64(at: 0) }.map { UserID(Int($0)) }
    }

    /// Deletes the live token `hash` of `purpose`, returning whose it was and the address it was
    /// mailed to; nil for a dead one.
    private static func useToken(
        _ hash: [UInt8], _ purpose: MailTokenPurpose, now: Date, on connection: PostgresConnection, tables: Tables
    ) throws(StoreError) -> (UserID, String?)? {
        let rows = try connection.query(
            """
            DELETE FROM \(tables.mailToken) WHERE hash = $1 AND purpose = $2 AND expires_at > $3
            RETURNING user_id, address
            """, [PostgresBytea.encode(hash), purpose.rawValue, seconds(now)]
        ).rows
        guard let row = rows.first, let user = try row.int64(at: 0) else { return nil }
        return (UserID(Int(user)), row.string(at: 1))
    }

    private static func insert(
        _ token: MailToken, of user: UserID, address: String?, on connection: PostgresConnection, tables: Tables
    ) throws(StoreError) {
        try connection.query(
            "INSERT INTO \(tables.mailToken) (hash, user_id, purpose, address, expires_at) VALUES ($1, $2, $3, $4, $5)",
            [PostgresBytea.encode(token.hash), String(user.rawValue), token.purpose.rawValue, address, seconds(token.expiresAt)])
    }

    private static func queue(
        _ mail: String, about user: UserID?, now: Date, on connection: PostgresConnection, tables: Tables
    ) throws(StoreError) {
        try connection.query(
            "INSERT INTO \(tables.outbox) (user_id, message, queued_at, next_attempt_at) VALUES ($1, $2, $3, $3)",
            [user.map { String($0.rawValue) }, mail, seconds(now)])
    }
}

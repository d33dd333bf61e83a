package import Foundation
package import Store

/// Email addresses, mail links and the outbox (``MailStorage``), on the connection that also
/// keeps password hashes and sessions: a change and the mail it causes commit together, and
/// one process owns the database, so the sender's claims need no lock beyond the transaction.
extension SQLiteAccountStorage: MailStorage {
    package func addresses(of user: UserID) throws(StoreError) -> EmailAddresses {
        try open(for: "read email").prepare("SELECT verified, pending FROM email WHERE user_id = ?")
            .rows([.integer(Int64(user.rawValue))]) { row in
                EmailAddresses(verified: row.isNull(at: 0) ? nil : row.text(at: 0), pending: row.isNull(at: 1) ? nil : row.text(at: 1))
            }.first ?? EmailAddresses()
    }

    package func requestAddress(
        _ address: String, of user: UserID, whilePasswordIs hash: PasswordHash, token: MailToken, mails: [String],
        allowance: MailAllowance, now: Date
    ) throws(StoreError) -> MailQueueOutcome {
        let connection = try open(for: "request email address")
        let id = SQLiteStatement.Value.integer(Int64(user.rawValue))
        return try connection.transaction { () throws(StoreError) -> MailQueueOutcome in
            let current = try connection.prepare("SELECT hash FROM password WHERE user_id = ?").rows([id]) { $0.text(at: 0) }.first
            guard current == hash.encoded else { return .passwordChanged }
            if let wait = try Self.spend(allowance, now: now, on: connection) { return .limited(retryAfter: wait) }
            try connection.prepare(
                "INSERT INTO email (user_id, pending) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET pending = excluded.pending"
            ).run([id, .text(address)])
            try connection.prepare("DELETE FROM mail_token WHERE user_id = ? AND purpose = ?")
                .run([id, .text(MailTokenPurpose.verifyAddress.rawValue)])
            try Self.insert(token, of: user, address: address, on: connection)
            for mail in mails { try Self.queue(mail, about: user, now: now, on: connection) }
            return .queued
        }
    }

    package func tokenOwner(hash: [UInt8], purpose: MailTokenPurpose, now: Date) throws(StoreError) -> UserID? {
        try open(for: "read mail link").prepare("SELECT user_id FROM mail_token WHERE hash = ? AND purpose = ? AND expires_at > ?")
            .rows([.blob(hash), .text(purpose.rawValue), .real(now.timeIntervalSince1970)]) { UserID(Int($0.int(at: 0))) }.first
    }

    package func verifyAddress(tokenHash: [UInt8], now: Date) throws(StoreError) -> AddressVerification {
        let connection = try open(for: "verify email address")
        return try connection.transaction { () throws(StoreError) -> AddressVerification in
            guard let (user, address) = try Self.useToken(tokenHash, .verifyAddress, now: now, on: connection), let address else {
                return .deadToken
            }
            let key = address.lowercased()
            let holders = try connection.prepare("SELECT user_id FROM email WHERE verified_key = ? AND user_id <> ?")
                .rows([.text(key), .integer(Int64(user.rawValue))]) { $0.int(at: 0) }
            guard holders.isEmpty else { return .takenByAnother }
            try connection.prepare(
                """
                UPDATE email SET verified = ?1, verified_key = ?2, pending = CASE WHEN pending = ?1 THEN NULL ELSE pending END
                WHERE user_id = ?3
                """
            ).run([.text(address), .text(key), .integer(Int64(user.rawValue))])
            return .verified(user, address: address)
        }
    }

    package func requestReset(forAddress address: String, allowance: MailAllowance, now: Date) throws(StoreError) -> MailQueueOutcome {
        let connection = try open(for: "request password reset")
        return try connection.transaction { () throws(StoreError) -> MailQueueOutcome in
            if let wait = try Self.spend(allowance, now: now, on: connection) { return .limited(retryAfter: wait) }
            try connection.prepare("INSERT INTO reset_request (address, requested_at) VALUES (?, ?)")
                .run([.text(address), .real(now.timeIntervalSince1970)])
            return .queued
        }
    }

    package func resolveResetRequests(
        now: Date, allowance: @escaping @Sendable (UserID) -> MailAllowance,
        compose: @escaping @Sendable (UserID, String) -> (token: MailToken, mail: String)?
    ) throws(StoreError) -> Int {
        let connection = try open(for: "resolve password resets")
        let requests = try connection.prepare("SELECT id, address FROM reset_request ORDER BY id")
            .rows { (id: $0.int(at: 0), address: $0.text(at: 1)) }
        var queued = 0
        for request in requests {
            queued += try connection.transaction { () throws(StoreError) -> Int in
                try connection.prepare("DELETE FROM reset_request WHERE id = ?").run([.integer(request.id)])
                let owners = try connection.prepare("SELECT user_id, verified FROM email WHERE verified_key = ?")
                    .rows([.text(request.address.lowercased())]) { (UserID(Int($0.int(at: 0))), $0.text(at: 1)) }
                guard let (user, verified) = owners.first, try Self.spend(allowance(user), now: now, on: connection) == nil,
                    let (token, mail) = compose(user, verified)
                else { return 0 }
                try connection.prepare("DELETE FROM mail_token WHERE user_id = ? AND purpose = ?")
                    .run([.integer(Int64(user.rawValue)), .text(MailTokenPurpose.resetPassword.rawValue)])
                try Self.insert(token, of: user, address: nil, on: connection)
                try Self.queue(mail, about: user, now: now, on: connection)
                return 1
            }
        }
        return queued
    }

    package func resetPassword(
        tokenHash: [UInt8], to hash: PasswordHash, now: Date, notice: @escaping @Sendable (UserID, String) -> String?
    ) throws(StoreError) -> PasswordResetOutcome {
        let connection = try open(for: "reset password")
        return try connection.transaction { () throws(StoreError) -> PasswordResetOutcome in
            guard let (user, _) = try Self.useToken(tokenHash, .resetPassword, now: now, on: connection) else { return .deadToken }
            let id = SQLiteStatement.Value.integer(Int64(user.rawValue))
            try connection.prepare(
                "INSERT INTO password (user_id, hash) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash"
            ).run([id, .text(hash.encoded)])
            try Self.deleteTokens(of: user, on: connection)
            let ended = try connection.prepare("SELECT id FROM session WHERE user_id = ?").rows([id]) { $0.blob(at: 0) }
            try connection.prepare("DELETE FROM session WHERE user_id = ?").run([id])
            let verified = try connection.prepare("SELECT verified FROM email WHERE user_id = ? AND verified IS NOT NULL")
                .rows([id]) { $0.text(at: 0) }.first
            if let verified, let mail = notice(user, verified) { try Self.queue(mail, about: user, now: now, on: connection) }
            return .reset(user, endedSessions: ended)
        }
    }

    package func queueMail(_ mail: String, about user: UserID?, now: Date) throws(StoreError) {
        try Self.queue(mail, about: user, now: now, on: try open(for: "queue mail"))
    }

    package func claimMail(now: Date, lease: TimeInterval, limit: Int) throws(StoreError) -> [QueuedMail] {
        let connection = try open(for: "claim mail")
        let time = SQLiteStatement.Value.real(now.timeIntervalSince1970)
        return try connection.transaction { () throws(StoreError) -> [QueuedMail] in
            try connection.prepare("DELETE FROM mail_token WHERE expires_at <= ?").run([time])
            try connection.prepare("DELETE FROM mail_allowance WHERE at <= ? - 3600").run([time])
            let due = try connection.prepare(
                """
                SELECT id, message, attempts, queued_at FROM outbox
                WHERE next_attempt_at <= ?1 AND (claimed_until IS NULL OR claimed_until <= ?1) ORDER BY id LIMIT ?2
                """
            ).rows([time, .integer(Int64(limit))]) {
                QueuedMail(
                    id: $0.int(at: 0), message: $0.text(at: 1), attempts: Int($0.int(at: 2)),
                    queuedAt: Date(timeIntervalSince1970: $0.real(at: 3)), claimedUntil: now + lease)
            }
            let hold = try connection.prepare("UPDATE outbox SET claimed_until = ? WHERE id = ?")
            for mail in due { try hold.run([.real(mail.claimedUntil.timeIntervalSince1970), .integer(mail.id)]) }
            return due
        }
    }

    package func finishMail(_ mail: QueuedMail) throws(StoreError) {
        try open(for: "finish mail").prepare("DELETE FROM outbox WHERE id = ? AND claimed_until = ?")
            .run([.integer(mail.id), .real(mail.claimedUntil.timeIntervalSince1970)])
    }

    package func retryMail(_ mail: QueuedMail, at date: Date) throws(StoreError) {
        try open(for: "retry mail").prepare(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, claimed_until = NULL WHERE id = ? AND claimed_until = ?"
        ).run([.real(date.timeIntervalSince1970), .integer(mail.id), .real(mail.claimedUntil.timeIntervalSince1970)])
    }

    /// Counts one mail against `allowance`; the seconds until it has room again when it is spent
    /// (nothing counted then).
    private static func spend(_ allowance: MailAllowance, now: Date, on connection: SQLiteConnection) throws(StoreError) -> TimeInterval? {
        let since = now.timeIntervalSince1970 - allowance.window
        let times = try connection.prepare("SELECT at FROM mail_allowance WHERE key = ? AND at > ? ORDER BY at")
            .rows([.text(allowance.key), .real(since)]) { $0.real(at: 0) }
        if times.count >= allowance.limit, let oldest = times.first {
            return max(1, (oldest + allowance.window - now.timeIntervalSince1970).rounded(.up))
        }
        try connection.prepare("INSERT INTO mail_allowance (key, at) VALUES (?, ?)")
            .run([.text(allowance.key), .real(now.timeIntervalSince1970)])
        return nil
    }

    /// Deletes the live token `hash` of `purpose`, returning whose it was and the address it was
    /// mailed to; nil for a dead one.
    private static func useToken(
        _ hash: [UInt8], _ purpose: MailTokenPurpose, now: Date, on connection: SQLiteConnection
    ) throws(StoreError) -> (UserID, String?)? {
        let found = try connection.prepare("SELECT user_id, address FROM mail_token WHERE hash = ? AND purpose = ? AND expires_at > ?")
            .rows([.blob(hash), .text(purpose.rawValue), .real(now.timeIntervalSince1970)]) {
                (UserID(Int($0.int(at: 0))), $0.isNull(at: 1) ? nil : $0.text(at: 1))
            }.first
        guard let found else { return nil }
        try connection.prepare("DELETE FROM mail_token WHERE hash = ?").run([.blob(hash)])
        return found
    }

    private static func insert(_ token: MailToken, of user: UserID, address: String?, on connection: SQLiteConnection) throws(StoreError) {
        try connection.prepare("INSERT INTO mail_token (hash, user_id, purpose, address, expires_at) VALUES (?, ?, ?, ?, ?)").run([
            .blob(token.hash), .integer(Int64(user.rawValue)), .text(token.purpose.rawValue), address.map { .text($0) } ?? .null,
            .real(token.expiresAt.timeIntervalSince1970),
        ])
    }

    static func deleteTokens(of user: UserID, on connection: SQLiteConnection) throws(StoreError) {
        try connection.prepare("DELETE FROM mail_token WHERE user_id = ?").run([.integer(Int64(user.rawValue))])
    }

    private static func queue(_ mail: String, about user: UserID?, now: Date, on connection: SQLiteConnection) throws(StoreError) {
        try connection.prepare("INSERT INTO outbox (user_id, message, queued_at, next_attempt_at) VALUES (?, ?, ?, ?)").run([
            user.map { .integer(Int64($0.rawValue)) } ?? .null, .text(mail), .real(now.timeIntervalSince1970),
            .real(now.timeIntervalSince1970),
        ])
    }
}

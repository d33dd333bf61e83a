package import Foundation
import Synchronization

/// Sign-in failures shared by every instance: each username's failure times in one row, which
/// `INSERT … ON CONFLICT DO UPDATE` locks while it prunes and appends
/// (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT), so five failures spread
/// over two instances are five in the row and the fifth sees them all.
extension PostgresAccountStorage: SignInFailureStorage {
    package func recordFailure(for username: String, at date: Date, forgettingBefore windowStart: Date) async throws(StoreError) -> Int {
        try await purgeFailures(at: date, forgettingBefore: windowStart)
        let rows = try await query(
            "record sign-in failure", on: sessions,
            """
            INSERT INTO \(tables.signInFailure) AS stored (username, failures) VALUES ($1, ARRAY[$2::double precision])
            ON CONFLICT (username) DO UPDATE SET failures =
                ARRAY(SELECT failure FROM unnest(stored.failures) AS failure WHERE failure > $3::double precision)
                || $2::double precision
            RETURNING cardinality(failures)
            """, [username, Self.seconds(date), Self.seconds(windowStart)]
        ).rows
        guard let count = try rows.first?.int64(at: 0) else { throw Self.missing("failure count") }
        return Int(count)
    }

    package func lock(_ username: String, until date: Date) async throws(StoreError) {
        try await query(
            "lock sign-ins", on: sessions,
            """
            INSERT INTO \(tables.signInFailure) (username, failures, locked_until) VALUES ($1, '{}', $2)
            ON CONFLICT (username) DO UPDATE SET failures = '{}', locked_until = excluded.locked_until
            """, [username, Self.seconds(date)])
    }

    package func lockEnd(for username: String) async throws(StoreError) -> Date? {
        let rows = try await query(
            "read sign-in lock", on: sessions, "SELECT locked_until FROM \(tables.signInFailure) WHERE username = $1", [username]
        ).rows
        guard let row = rows.first, row.string(at: 0) != nil else { return nil }
        return try Self.date(row, at: 0)
    }

    package func clearFailures(for username: String) async throws(StoreError) {
        try await query(
            "clear sign-in failures", on: sessions, "DELETE FROM \(tables.signInFailure) WHERE username = $1", [username])
    }

    /// Deletes the rows that neither lock nor count any more, at most once per window per
    /// instance, so guessing at many usernames cannot grow the table without end.
    private func purgeFailures(at date: Date, forgettingBefore windowStart: Date) async throws(StoreError) {
        let isDue = lastFailurePurge.withLock { last in
            guard last.map({ $0 <= windowStart || $0 > date }) ?? true else { return false }
            last = date
            return true
        }
        guard isDue else { return }
        try await query(
            "purge sign-in failures", on: sessions,
            """
            DELETE FROM \(tables.signInFailure)
            WHERE (locked_until IS NULL OR locked_until <= $1::double precision)
                AND NOT EXISTS (SELECT 1 FROM unnest(failures) AS failure WHERE failure > $2::double precision)
            """, [Self.seconds(date), Self.seconds(windowStart)])
    }
}

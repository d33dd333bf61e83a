package import Foundation
package import Store
import Synchronization

/// Attempts shared by every instance: each key's attempt times in one row of `sign_in_failure`
/// (its `username` column holds `namespace:key`), which `INSERT … ON CONFLICT DO UPDATE` locks
/// while it prunes, checks and appends (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT),
/// so attempts made at once on two instances are counted one after the other, each seeing the
/// others: five spread over two instances are five in the row, and a sixth is refused.
extension PostgresAccountStorage: SignInFailureStorage {
    /// One statement: the `attempt` CTE inserts or updates the row only when the attempts count
    /// (the `DO UPDATE … WHERE` re-checks the row as it is once locked, in READ COMMITTED), all
    /// `count` of them or none; it returns nothing when refused. The `before` CTE reads the row
    /// as the statement's snapshot saw it, which says why it was refused (a lock, or the attempt
    /// whose leaving the window makes room) for `Retry-After`, unless that snapshot had room:
    /// then another instance filled the row meanwhile, and a second statement reads it as it is.
    package func reserveAttempts(
        _ count: Int, in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
    ) async throws(StoreError) -> AttemptReservation {
        let limit = max(1, limit)
        let count = min(max(1, count), limit)
        try await purgeAttempts(in: namespace, at: date, forgettingBefore: windowStart)
        let rows = try await query(
            "reserve attempt", on: sessions,
            """
            WITH attempt AS (
                INSERT INTO \(tables.signInFailure) AS stored (username, failures)
                VALUES ($1, array_fill($2::double precision, ARRAY[$5::int]))
                ON CONFLICT (username) DO UPDATE SET failures =
                    ARRAY(SELECT failure FROM unnest(stored.failures) AS failure WHERE failure > $3::double precision)
                    || array_fill($2::double precision, ARRAY[$5::int])
                WHERE (stored.locked_until IS NULL OR stored.locked_until <= $2::double precision)
                    AND (SELECT count(*) FROM unnest(stored.failures) AS failure WHERE failure > $3::double precision)
                        + $5::int <= $4::bigint
                RETURNING cardinality(failures)
            ), before AS (
                SELECT locked_until,
                    ARRAY(SELECT failure FROM unnest(failures) AS failure WHERE failure > $3::double precision ORDER BY failure) AS live
                FROM \(tables.signInFailure) WHERE username = $1
            )
            SELECT (SELECT * FROM attempt), (SELECT locked_until FROM before),
                (SELECT live[greatest(cardinality(live) + $5::int - $4::bigint, 1)::int] FROM before),
                (SELECT cardinality(live) FROM before)
            """, [Self.key(namespace, key), Self.seconds(date), Self.seconds(windowStart), String(limit), String(count)]
        ).rows
        guard let row = rows.first else { throw Self.missing("attempt count") }
        if let count = try row.int64(at: 0) { return .counted(Int(count)) }
        if row.string(at: 1) != nil {
            let lockEnd = try Self.date(row, at: 1)
            if lockEnd > date { return .locked(until: lockEnd) }
        }
        if row.string(at: 2) != nil, let held = try row.int64(at: 3), Int(held) + count > limit {
            return .full(oldest: try Self.date(row, at: 2))
        }
        // Refused on attempts the statement's snapshot did not see (another instance added them
        // while this waited for the row): which must leave is read from the row as it is now.
        return try await attemptMakingRoom(for: count, in: namespace, key, forgettingBefore: windowStart, limit: limit) ?? .full(oldest: date)
    }

    /// ``AttemptReservation/full(oldest:)`` from the row as committed now: the attempt whose
    /// leaving the window makes room for `count`, or nil when there is room (a release came
    /// in between; the caller says to try again at once).
    private func attemptMakingRoom(
        for count: Int, in namespace: String, _ key: String, forgettingBefore windowStart: Date, limit: Int
    ) async throws(StoreError) -> AttemptReservation? {
        let rows = try await query(
            "read attempts", on: sessions,
            """
            SELECT live[(cardinality(live) + $3::int - $2::bigint)::int], cardinality(live) FROM (
                SELECT ARRAY(SELECT failure FROM unnest(failures) AS failure WHERE failure > $4::double precision ORDER BY failure) AS live
                FROM \(tables.signInFailure) WHERE username = $1
            ) AS row
            """, [Self.key(namespace, key), String(limit), String(count), Self.seconds(windowStart)]
        ).rows
        guard let row = rows.first, let held = try row.int64(at: 1), Int(held) + count > limit, row.string(at: 0) != nil else { return nil }
        return .full(oldest: try Self.date(row, at: 0))
    }

    /// Removes `count` of the attempts made at `date` (several may share a time, and they are
    /// alike): all of them go, and as many as were over `count` come back at the end.
    package func releaseAttempts(_ count: Int, in namespace: String, for key: String, at date: Date) async throws(StoreError) {
        try await query(
            "release attempts", on: sessions,
            """
            UPDATE \(tables.signInFailure)
            SET failures = array_remove(failures, $2::double precision) || array_fill($2::double precision,
                ARRAY[greatest(cardinality(failures) - cardinality(array_remove(failures, $2::double precision)) - $3::int, 0)])
            WHERE username = $1 AND $2::double precision = ANY(failures)
            """, [Self.key(namespace, key), Self.seconds(date), String(max(0, count))])
    }

    package func lock(in namespace: String, _ key: String, until date: Date) async throws(StoreError) {
        try await query(
            "lock attempts", on: sessions,
            """
            INSERT INTO \(tables.signInFailure) (username, failures, locked_until) VALUES ($1, '{}', $2)
            ON CONFLICT (username) DO UPDATE SET failures = '{}', locked_until = excluded.locked_until
            """, [Self.key(namespace, key), Self.seconds(date)])
    }

    package func clearAttempts(in namespace: String, for key: String) async throws(StoreError) {
        try await query(
            "clear attempts", on: sessions, "DELETE FROM \(tables.signInFailure) WHERE username = $1", [Self.key(namespace, key)])
    }

    /// The row's key: namespaces hold no `:`, so no key of one namespace is a key of another.
    private static func key(_ namespace: String, _ key: String) -> String {
        namespace + ":" + key
    }

    /// Deletes the rows of `namespace` that neither lock nor count any more, at most once per
    /// window per namespace and instance, so guessing at many usernames (or coming from many
    /// addresses) cannot grow the table without end.
    private func purgeAttempts(in namespace: String, at date: Date, forgettingBefore windowStart: Date) async throws(StoreError) {
        let isDue = lastFailurePurge.withLock { purges in
            guard purges[namespace].map({ $0 <= windowStart || $0 > date }) ?? true else { return false }
            purges[namespace] = date
            return true
        }
        guard isDue else { return }
        try await query(
            "purge attempts", on: sessions,
            """
            DELETE FROM \(tables.signInFailure)
            WHERE starts_with(username, $3)
                AND (locked_until IS NULL OR locked_until <= $1::double precision)
                AND NOT EXISTS (SELECT 1 FROM unnest(failures) AS failure WHERE failure > $2::double precision)
            """, [Self.seconds(date), Self.seconds(windowStart), Self.key(namespace, "")])
    }
}

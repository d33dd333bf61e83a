import Foundation
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// What only PostgreSQL account storage has to get right: instances starting together on one
/// schema, and a schema a newer Quotebook migrated.
@Suite(.enabled(if: TestBackend.databaseURLText != nil, Comment(rawValue: TestBackend.postgresSkipReason)))
struct PostgresAccountStorageTests {
    @Test func instancesStartingTogetherMigrateOnce() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = try await database.makeInstance() } }
                try await group.waitForAll()
            }
            let (url, schema) = try Self.postgresLocation(of: database)
            let version = try await PostgresClient(url: url).query(
                "SELECT version FROM \(schema).quotebook_migration WHERE component = 'accounts'")
            #expect(try version.rows.map { try $0.int64(at: 0) } == [Int64(PostgresAccountStorage.migrations.count)])
        }
    }

    @Test func aSchemaANewerQuotebookMigratedIsRefused() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            _ = try await database.makeInstance()
            let (url, schema) = try Self.postgresLocation(of: database)
            try await PostgresClient(url: url).query("UPDATE \(schema).quotebook_migration SET version = 99")
            await #expect {
                _ = try await PostgresAccountStorage(url: url, schema: schema)
            } throws: { error in
                guard case StoreError.newerSchema(_, version: 99) = error else { return false }
                return true
            }
        }
    }

    @Test func aSchemaNameTooLongForItsChannelIsRefusedBeforeConnecting() async throws {
        let url = try PostgresURL(parsing: try #require(TestBackend.databaseURLText))
        await #expect(throws: StoreError.self) {
            _ = try await PostgresAccountStorage(url: url, schema: String(repeating: "s", count: 41))
        }
        #expect(PostgresAccountStorage.channel(forSchema: "public") == "quotebook_sessions")
        #expect(PostgresAccountStorage.channel(forSchema: String(repeating: "s", count: 40)).utf8.count <= 63)
    }

    @Test func attemptsThatNoLongerCountOrLockAreDeletedInTheirNamespaceOnly() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let storage = try await database.makeInstance().signInFailures
            let start = Date(timeIntervalSince1970: 1_000_000)
            func reserve(_ namespace: String, _ key: String, at date: Date) async throws {
                _ = try await storage.reserveAttempt(
                    in: namespace, for: key, at: date, forgettingBefore: date.addingTimeInterval(-60), limit: 5)
            }
            for name in ["a", "b", "c"] { try await reserve("user", name, at: start) }
            try await reserve("other", "e", at: start)
            try await storage.lock(in: "user", "c", until: start.addingTimeInterval(120))
            try await reserve("user", "d", at: start.addingTimeInterval(61))
            let (url, schema) = try Self.postgresLocation(of: database)
            let names = try await PostgresClient(url: url).query("SELECT username FROM \(schema).sign_in_failure ORDER BY 1")
            #expect(names.rows.map { $0.string(at: 0) } == ["other:e", "user:c", "user:d"], "c is still locked; e is another namespace's")
        }
    }

    @Test func releasingAnAttemptRemovesOneOfThoseMadeAtItsTime() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let storage = try await database.makeInstance().signInFailures
            let now = Date(timeIntervalSince1970: 1_000_000)
            let earlier = now.addingTimeInterval(-1)
            func reserve(at date: Date) async throws -> AttemptReservation {
                try await storage.reserveAttempt(in: "n", for: "k", at: date, forgettingBefore: now.addingTimeInterval(-60), limit: 3)
            }
            #expect(try await reserve(at: earlier) == .counted(1))
            for count in 2...3 { #expect(try await reserve(at: now) == .counted(count)) }
            #expect(try await reserve(at: now) == .full(oldest: earlier))
            try await storage.releaseAttempt(in: "n", for: "k", at: now)
            try await storage.releaseAttempt(in: "n", for: "k", at: now.addingTimeInterval(5))
            #expect(try await reserve(at: now) == .counted(3))
            try await storage.lock(in: "n", "k", until: now.addingTimeInterval(30))
            #expect(try await reserve(at: now) == .locked(until: now.addingTimeInterval(30)))
        }
    }

    /// Attempts another instance adds while a reservation waits for the row are not in that
    /// reservation's snapshot: refused, it reads the row again for the attempt whose leaving
    /// makes room (here the third oldest), not the snapshot's oldest.
    @Test func aReservationThatLostARaceWaitsForTheRightAttempt() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let storage = try await database.makeInstance().signInFailures
            let start = Date(timeIntervalSince1970: 1_000_000)
            let at = { (seconds: TimeInterval) in start.addingTimeInterval(seconds) }
            func reserve(_ count: Int, at seconds: TimeInterval) async throws -> AttemptReservation {
                try await storage.reserveAttempts(
                    count, in: "writes", for: "k", at: at(seconds), forgettingBefore: at(seconds - 600), limit: 6)
            }
            for (index, seconds) in [10.0, 20, 30].enumerated() { #expect(try await reserve(1, at: seconds) == .counted(index + 1)) }
            let (url, schema) = try Self.postgresLocation(of: database)
            let other = PostgresClient(url: url)
            try await other.query("BEGIN")
            try await other.query(
                "UPDATE \(schema).sign_in_failure SET failures = failures || array_fill($1::double precision, ARRAY[3]) WHERE username = 'writes:k'",
                [String(at(40).timeIntervalSince1970)])
            let (raceDate, raceWindow) = (at(40), at(40 - 600))
            let racing = Task { [storage] in
                try await storage.reserveAttempts(3, in: "writes", for: "k", at: raceDate, forgettingBefore: raceWindow, limit: 6)
            }
            // Commit only once the reservation waits for the row, so its snapshot is the old one.
            let watcher = PostgresClient(url: url)
            var waited = false
            for _ in 0..<100 where !waited {
                let waiting = try await watcher.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(schema)%sign_in_failure%'")
                waited = try waiting.rows.first?.int64(at: 0) ?? 0 > 0
                if !waited { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(waited, "the reservation waited for the other instance's row")
            try await other.query("COMMIT")
            // Six held (10, 20, 30 and three at 40), three wanted, six allowed: 30 must leave.
            #expect(try await racing.value == .full(oldest: at(30)))
            await other.close()
            await watcher.close()
        }
    }

    /// Photos stored before claims were counted get a use row each, so a claim and a deletion of
    /// them meet on its lock like any other's, and nothing keeps them once released.
    @Test func migratingGivesEveryPhotoStoredBeforeItAUseRow() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            let (url, schema) = try Self.postgresLocation(of: database)
            let admin = PostgresClient(url: url)
            // The schema as the first migration left it, with one photo.
            try await admin.withConnection { connection throws(StoreError) in
                try connection.transaction { () throws(StoreError) in
                    try connection.query("SET LOCAL search_path TO \(schema)")
                    for statement in PostgresAccountStorage.migrations[0] { try connection.query(statement) }
                    try connection.query("CREATE TABLE quotebook_migration (component text PRIMARY KEY, version integer NOT NULL)")
                    try connection.query("INSERT INTO quotebook_migration VALUES ('accounts', 1)")
                    try connection.query("INSERT INTO photo (hash, media_type, bytes) VALUES ('old', 'image/png', '\\x0102')")
                }
            }
            await admin.close()
            let storage = try await database.makeInstance().photos
            #expect(try await storage.storedHashes() == ["old"])
            #expect(try await storage.delete(hash: "old", unreferencedThrough: 0, abandoningClaimsOlderThan: 3600))
            #expect(try await storage.storedHashes().isEmpty)
        }
    }

    private static func postgresLocation(of database: AccountDatabase) throws -> (PostgresURL, String) {
        guard case .postgres(let url, let schema) = database.location else { throw AccountBackendError.notConfigured }
        return (url, schema)
    }
}

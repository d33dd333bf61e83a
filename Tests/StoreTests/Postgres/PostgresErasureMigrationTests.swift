import Foundation
import Logging
import Store
import StorePostgres
import TestSupport
import Testing

/// PostgreSQL's journal migration 2, as SQLite's 7 (``ErasureTests``): sign-ups' password hashes
/// leave the journal for the password table (a changed one there stays) and every entry about
/// a person is indexed under them, so a deletion can erase them.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1))) struct PostgresErasureMigrationTests {
    @Test func anEarlierJournalsSignUpHashesMoveToThePasswordTable() async throws {
        try await JournalLocation.with(.postgres) { location in
            let schema = "\"\(try #require(location.schema))\""
            let client = try PostgresTestDatabase.makeClient()
            try await client.query("CREATE SCHEMA IF NOT EXISTS \(schema)")
            try await client.query("SET search_path TO \(schema)")
            for statement in PostgresJournal.migrations[0] { try await client.query(statement) }
            try await client.query("CREATE TABLE quotebook_migration (component text PRIMARY KEY, version integer NOT NULL)")
            try await client.query("INSERT INTO quotebook_migration VALUES ('journal', 1)")
            try await client.query("CREATE TABLE password (user_id bigint PRIMARY KEY, hash text NOT NULL)")
            try await client.query("INSERT INTO password VALUES (2, '$y$j9T$bobchanged')")
            let rows = [
                #"{"signUp":{"_0":"ada","at":0,"displayName":"Ada","passwordHash":"$y$j9T$adaold"}}"#,
                #"{"signUp":{"_0":"bob","at":0,"displayName":"Bob","passwordHash":"$y$j9T$bobsignup"}}"#,
                #"{"changeDisplayName":{"_0":2,"at":0,"to":"Robert"}}"#,
                #"{"addQuote":{"_0":{"author":"A","text":"T"},"at":0,"by":1}}"#,
            ]
            for (index, row) in rows.enumerated() {
                try await client.query("INSERT INTO journal (sequence, action) VALUES ($1::bigint, $2)", [String(index + 1), row])
            }
            try await client.query("UPDATE journal_head SET sequence = 4")

            let journal = try location.openPostgres()
            journal.close()
            let hashes = try await client.query("SELECT user_id::text || '=' || hash FROM password ORDER BY user_id")
            #expect(hashes.rows.map { $0.string(at: 0) } == ["1=$y$j9T$adaold", "2=$y$j9T$bobchanged"])
            let people = try await client.query("SELECT coalesce(person_id, 0)::text FROM journal ORDER BY sequence")
            #expect(people.rows.map { $0.string(at: 0) } == ["1", "2", "2", "0"])
            let actions = try await client.query("SELECT action FROM journal ORDER BY sequence")
            #expect(!actions.rows.compactMap { $0.string(at: 0) }.joined().contains("$y$"))
            await client.close()

            let store = try Store(journal: try location.openPostgres(), logger: .discarding())
            #expect(store.state.users[UserID(2)]?.displayName == "Robert")
            #expect(store.state.user(named: Username("ada")!)?.id == UserID(1))
            await store.close()
        }
    }
}

import Foundation
import Logging
import Store
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// The journal's own rules in PostgreSQL, with two journals on one schema standing for two
/// instances: the head check, commit order without gaps, the notification, migrations, snapshots.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1)))
struct PostgresJournalTests {
    static let date = Date(timeIntervalSince1970: 1_000)

    static func add(_ text: String) -> AppAction {
        .addQuote(QuoteDraft(text: text, author: "A"), by: nil, at: date)
    }

    @Test func anAppendOnAnEntryThatIsNoLongerTheNewestIsRefusedAndStoresNothing() async throws {
        try await JournalLocation.with(.postgres) { location in
            let first = try location.openPostgres()
            let second = try location.openPostgres()
            #expect(try first.append([(Self.add("A"), QuoteID(1))], basedOn: 0) == [1])
            #expect(throws: StoreError.journalBehind(head: 1)) {
                try second.append([(Self.add("B"), QuoteID(1)), (Self.add("C"), QuoteID(2))], basedOn: 0)
            }
            #expect(try second.loadAll().map(\.action) == [Self.add("A")])
            #expect(try second.append([(Self.add("B"), QuoteID(2))], basedOn: 1) == [2])
            #expect(try first.append([(Self.add("C"), QuoteID(3))], basedOn: 2) == [3])
            first.close()
            second.close()
        }
    }

    /// A follower reads "every entry after my newest": that only works if no entry ever becomes
    /// visible after one with a larger number, which the reader here checks while two writers
    /// append batches at once.
    @Test func appendsFromTwoInstancesAtOnceGetEveryNumberOnceInCommitOrder() async throws {
        try await JournalLocation.with(.postgres) { location in
            let batchesPerInstance = 40
            let batchSizes: [Int64] = (0..<batchesPerInstance).map { Int64($0 % 3 + 1) }
            let total = 2 * batchSizes.reduce(0, +)
            let (sequences, gaps) = try await withThrowingTaskGroup(of: ([Int64], [String]).self) { group in
                for instance in 0..<2 {
                    group.addTask {
                        try await offPool { () throws -> ([Int64], [String]) in
                            let journal = try location.openPostgres()
                            defer { journal.close() }
                            var sequences: [Int64] = []
                            for index in 0..<batchesPerInstance {
                                let batch = (0...index % 3).map { (Self.add("\(instance)-\(index)-\($0)"), QuoteID?.none) }
                                sequences += try journal.append(batch)
                            }
                            return (sequences, [])
                        }
                    }
                }
                group.addTask {
                    try await offPool { () throws -> ([Int64], [String]) in
                        let follower = try location.openPostgres()
                        defer { follower.close() }
                        var newest: Int64 = 0
                        var gaps: [String] = []
                        while newest < total {
                            for entry in try follower.loadEntries(after: newest) {
                                if entry.sequence != newest + 1 { gaps.append("\(entry.sequence) after \(newest)") }
                                newest = entry.sequence
                            }
                        }
                        return ([], gaps)
                    }
                }
                return try await group.reduce(into: ([Int64](), [String]())) {
                    $0.0 += $1.0
                    $0.1 += $1.1
                }
            }
            #expect(sequences.sorted() == Array(1...total))
            #expect(gaps.isEmpty, "the follower never saw an entry before a smaller one")
            let journal = try location.openPostgres()
            #expect(try journal.loadAll().map(\.sequence) == Array(1...total))
            journal.close()
        }
    }

    @Test func anAppendNotifiesTheJournalsChannelWithTheNewHead() async throws {
        try await JournalLocation.with(.postgres) { location in
            let journal = try location.openPostgres()
            let channel = journal.channel
            let listener = try PostgresTestDatabase.makeClient()
            try await listener.withConnection { connection throws(StoreError) in try connection.listen(to: channel) }
            _ = try journal.append([(Self.add("A"), QuoteID(1)), (Self.add("B"), QuoteID(2))])
            #expect(throws: StoreError.self) { try journal.append([(Self.add("C"), QuoteID(3))], basedOn: 1) }
            _ = try journal.append([(Self.add("C"), QuoteID(3))], basedOn: 2)
            var payloads: [String] = []
            while payloads.count < 2 {
                let received = try await listener.withConnection { connection throws(StoreError) in
                    try connection.notifications(waitingUpTo: .seconds(10))
                }
                try #require(!received.isEmpty)
                payloads += received.map(\.payload)
            }
            #expect(payloads == ["2", "3"], "the refused append notified no one")
            await listener.close()
            journal.close()
        }
    }

    @Test func storesEachActionAsTheSameJSONTextAsSQLite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await JournalLocation.with(.postgres) { location in
            let actions: [AppAction] = [
                Self.add("Zoë — „quoted“ 🦆"),
                .editQuote(QuoteID(1), QuoteDraft(text: "B", author: "C"), baseVersion: 1, by: UserID(3), at: Self.date),
            ]
            let sqlitePath = directory.url.appendingPathComponent("quotebook.sqlite3").path
            let sqlite = try SQLiteJournal(path: sqlitePath)
            let postgres = try location.openPostgres()
            _ = try sqlite.append(actions.map { ($0, QuoteID(1)) })
            _ = try postgres.append(actions.map { ($0, QuoteID(1)) })
            sqlite.close()
            postgres.close()
            let raw = try SQLiteConnection(path: sqlitePath)
            let sqliteTexts = try raw.prepare("SELECT action FROM journal ORDER BY sequence").rows { $0.text(at: 0) }
            raw.close()
            let client = try PostgresTestDatabase.makeClient()
            let rows = try await client.query("SELECT action FROM \"\(try #require(location.schema))\".journal ORDER BY sequence")
            await client.close()
            #expect(rows.rows.map { $0.string(at: 0) } == sqliteTexts)
        }
    }

    @Test func instancesOpeningAnEmptyDatabaseTogetherCreateTheSchemaOnce() async throws {
        try await JournalLocation.with(.postgres) { location in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await offPool { try location.openPostgres().close() } }
                }
                try await group.waitForAll()
            }
            let client = try PostgresTestDatabase.makeClient()
            let versions = try await client.query(
                "SELECT version FROM \"\(try #require(location.schema))\".quotebook_migration WHERE component = 'journal'")
            await client.close()
            #expect(versions.rows.map { $0.string(at: 0) } == [String(PostgresJournal.migrations.count)])
            let reopened = try location.openPostgres()
            #expect(try reopened.append([(Self.add("A"), nil)], basedOn: 0) == [1])
            reopened.close()
        }
    }

    @Test func refusesTablesANewerQuotebookMigrated() async throws {
        try await JournalLocation.with(.postgres) { location in
            try location.openPostgres().close()
            let schema = try #require(location.schema)
            let client = try PostgresTestDatabase.makeClient()
            try await client.query("UPDATE \"\(schema)\".quotebook_migration SET version = 99 WHERE component = 'journal'")
            await client.close()
            #expect {
                try location.openPostgres()
            } throws: { error in
                guard case .newerSchema(_, 99) = error as? StoreError else { return false }
                return true
            }
        }
    }

    /// Journals made before the migrations were counted in `quotebook_migration` kept their
    /// count in a `journal_schema` table: it is adopted, so their tables are not created again.
    @Test func aJournalOfTheEarlierVersionTableOpensWithEveryEntry() async throws {
        try await JournalLocation.with(.postgres) { location in
            let schema = "\"\(try #require(location.schema))\""
            let client = try PostgresTestDatabase.makeClient()
            try await client.query("CREATE SCHEMA IF NOT EXISTS \(schema)")
            // The client is one session: its search_path holds for the statements after it.
            try await client.query("SET search_path TO \(schema)")
            for statement in PostgresJournal.migrations[0] { try await client.query(statement) }
            try await client.query(
                "CREATE TABLE \(schema).journal_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            try await client.query("INSERT INTO \(schema).journal_schema (version) VALUES (1)")
            let first = try location.openPostgres()
            #expect(try first.append([(Self.add("Kept"), nil)], basedOn: 0) == [1])
            first.close()
            let reopened = try location.openPostgres()
            #expect(try reopened.loadEntries(after: 0).count == 1)
            reopened.close()
            let versions = try await client.query("SELECT version FROM \(schema).quotebook_migration WHERE component = 'journal'")
            #expect(versions.rows.map { $0.string(at: 0) } == [String(PostgresJournal.migrations.count)])
            await client.close()
        }
    }

    @Test func anOlderSnapshotNeverReplacesANewerOne() async throws {
        try await JournalLocation.with(.postgres) { location in
            let journal = try location.openPostgres()
            #expect(journal.loadSnapshot() == nil)
            var state = AppState()
            _ = AppReducer.apply(Self.add("Newer"), to: &state)
            try journal.saveSnapshot(JournalSnapshot(sequence: 5, state: state))
            try journal.saveSnapshot(JournalSnapshot(sequence: 3, state: AppState()))
            #expect(journal.loadSnapshot() == JournalSnapshot(sequence: 5, state: state))
            journal.close()
        }
    }
}

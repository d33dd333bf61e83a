import Foundation
import Logging
import Store
import StoreSQLite
import Synchronization
import TestSupport
import Testing

@Suite struct StoreTests {
    let date = Date(timeIntervalSince1970: 1_000)
    var seed: [AppAction] { [.addQuote(QuoteDraft(text: "Seeded", author: "Someone"), by: nil, at: date)] }

    @Test(arguments: JournalBackend.available)
    func seedsAnEmptyJournalOnce(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let first = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            #expect(first.state.quotes.count == 1)
            await first.close()
            let second = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            #expect(second.state.quotes.count == 1)
            #expect(second.state.quotes[QuoteID(1)]?.text == "Seeded")
            await second.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func dispatchedActionsSurviveReopening(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            let result = try await store.dispatch(
                .editQuote(QuoteID(1), QuoteDraft(text: "Edited", author: "Me"), baseVersion: 1, by: nil, at: date))
            #expect(result == .success(.quoteEdited(QuoteID(1), version: 2)))
            await store.close()

            let reopened = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            #expect(reopened.state.quotes[QuoteID(1)]?.text == "Edited")
            #expect(reopened.state.quotes[QuoteID(1)]?.version == 2)
            #expect(try await reopened.history(of: QuoteID(1)).map(\.text) == ["Seeded", "Edited"])
            await reopened.close()
        }
    }

    /// A reader's ``PublishedState`` is one version: a dispatch publishes a new one, a revision
    /// on, and leaves the one already read as it was; a refused action publishes nothing.
    @Test func publishedStateIsOneVersionAndItsRevision() async throws {
        let store = try Store(journal: try SQLiteJournal(path: ":memory:"), seed: seed, logger: .discarding())
        let before = store.publishedState
        #expect(before.revision == 0 && before.revision == store.revision)
        #expect(before.state == store.state && before.state.quotes[QuoteID(1)]?.text == "Seeded")
        _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "Edited", author: "Me"), baseVersion: 1, by: nil, at: date))
        let after = store.publishedState
        #expect(after.revision == 1 && after.revision == store.revision)
        #expect(after.state.quotes[QuoteID(1)]?.text == "Edited" && after.state == store.state)
        #expect(before.state.quotes[QuoteID(1)]?.text == "Seeded" && before.revision == 0)
        _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "", author: "Me"), baseVersion: 2, by: nil, at: date))
        #expect(store.publishedState === after)
        await store.close()
    }

    @Test(arguments: JournalBackend.available)
    func rejectedActionsAreNotJournaled(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            let result = try await store.dispatch(
                .editQuote(QuoteID(1), QuoteDraft(text: "", author: "Me"), baseVersion: 1, by: nil, at: date))
            #expect(result == .failure(.invalidQuote([.text: .empty])))
            #expect(store.state.quotes[QuoteID(1)]?.version == 1)
            await store.close()
            let journal = try location.open()
            #expect(try journal.loadAll().count == 1)
            journal.close()
        }
    }

    @Test(arguments: JournalBackend.available)
    func journalRecordsEveryAppliedActionInOrder(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let journal = try location.open()
            let add = AppAction.addQuote(QuoteDraft(text: "A", author: "B"), by: UserID(rawValue: 7), at: date)
            let edit = AppAction.editQuote(QuoteID(1), QuoteDraft(text: "C", author: "D"), baseVersion: 1, by: nil, at: date)
            let first = try journal.append(add, quote: QuoteID(1))
            let second = try journal.append(edit, quote: QuoteID(1))
            #expect(second > first)
            #expect(try journal.loadAll().map(\.action) == [add, edit])
            #expect(try journal.actions(forQuote: QuoteID(1)) == [add, edit])
            journal.close()
        }
    }

    @Test func aBatchIsAppendedWhollyOrNotAtAll() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try SQLiteJournal(directory: directory.url)
        let add = AppAction.addQuote(QuoteDraft(text: "A", author: "B"), by: nil, at: date)
        let edits = (1...3).map {
            AppAction.editQuote(QuoteID(1), QuoteDraft(text: "v\($0 + 1)", author: "B"), baseVersion: $0, by: nil, at: date)
        }
        #expect(try journal.append([(add, QuoteID(1))] + edits.map { ($0, QuoteID(1)) }) == [1, 2, 3, 4])
        #expect(try journal.append([]).isEmpty)
        // Another connection makes the journal refuse any row mentioning "boom".
        let saboteur = try SQLiteConnection(path: journal.path)
        try saboteur.execute(
            "CREATE TRIGGER no_boom BEFORE INSERT ON journal WHEN NEW.action LIKE '%boom%' BEGIN SELECT RAISE(ABORT, 'boom'); END")
        saboteur.close()
        let boom = AppAction.addQuote(QuoteDraft(text: "boom", author: "B"), by: nil, at: date)
        #expect(throws: StoreError.self) { try journal.append([(add, QuoteID(2)), (boom, QuoteID(3))]) }
        #expect(try journal.loadAll().map(\.action) == [add] + edits)
        #expect(try journal.append(add, quote: QuoteID(2)) == 5)
        journal.close()
    }

    @Test(arguments: JournalBackend.available)
    func observersReceiveAppliedEvents(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            let events = Mutex<[AppEvent]>([])
            store.observe { event in events.withLock { $0.append(event) } }
            _ = try await store.dispatch(
                .editQuote(QuoteID(1), QuoteDraft(text: "New", author: "Me"), baseVersion: 1, by: nil, at: date))
            #expect(events.withLock { $0 } == [.quoteEdited(QuoteID(1), version: 2)])
            await store.close()
        }
    }

    @Test func refusesADatabaseOfAnotherApplicationAndLeavesItUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let other = try SQLiteConnection(path: path)
        try other.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);")
        other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        #expect(throws: StoreError.foreignDatabase(path: path)) {
            _ = try SQLiteJournal(directory: directory.url)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func refusesAnotherApplicationsWALDatabaseWithoutCheckpointingIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("quotebook.sqlite3")
        let wal = URL(fileURLWithPath: url.path + "-wal")
        // Another application's database whose changes still sit in its WAL file.
        let other = try SQLiteConnection(path: url.path)
        try other.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE notes (body TEXT);")
        for index in 0..<200 { try other.execute("INSERT INTO notes VALUES ('note \(index) \(String(repeating: "x", count: 500))')") }
        try other.setCheckpointOnClose(false)
        other.close()
        let (mainBefore, walBefore) = (try Data(contentsOf: url), try Data(contentsOf: wal))
        #expect(walBefore.count > 100_000)

        #expect(throws: StoreError.foreignDatabase(path: url.path)) {
            _ = try SQLiteJournal(directory: directory.url)
        }
        #expect(try Data(contentsOf: url) == mainBefore)
        #expect(try Data(contentsOf: wal) == walBefore)
    }

    @Test func refusesAnEmptyDatabaseThatCarriesAnotherSchemaVersion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("quotebook.sqlite3")
        let other = try SQLiteConnection(path: url.path)
        try other.execute("PRAGMA user_version = 5")
        other.close()
        let before = try Data(contentsOf: url)

        #expect(throws: StoreError.foreignDatabase(path: url.path)) {
            _ = try SQLiteJournal(directory: directory.url)
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func closingCheckpointsSoTheDatabaseFileAloneHoldsEveryChange() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("quotebook.sqlite3")
        let store = try Store(
            journal: try SQLiteJournal(directory: directory.url),
            seed: [.addQuote(QuoteDraft(text: "Kept", author: "Someone"), by: nil, at: Date(timeIntervalSince1970: 0))],
            logger: .discarding())
        await store.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        // Only the main file, copied elsewhere, still opens with the seeded quote.
        let copy = try TemporaryDirectory()
        defer { copy.remove() }
        try FileManager.default.copyItem(at: url, to: copy.url.appendingPathComponent("quotebook.sqlite3"))
        let reopened = try Store(journal: try SQLiteJournal(directory: copy.url), logger: .discarding())
        #expect(reopened.state.quotes[QuoteID(1)]?.text == "Kept")
        await reopened.close()
    }

    @Test func oneJournalAtATimePerDataDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try SQLiteJournal(directory: directory.url)
        #expect {
            _ = try SQLiteJournal(directory: directory.url)
        } throws: { error in
            guard case .dataDirectory(_, let reason) = error as? StoreError else { return false }
            return reason.contains("another Quotebook process")
        }
        first.close()
        let again = try SQLiteJournal(directory: directory.url)
        again.close()
    }

    @Test func refusesADamagedFileAndLeavesItUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("quotebook.sqlite3")
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: url)

        #expect {
            _ = try SQLiteJournal(directory: directory.url)
        } throws: { error in
            if case .damagedDatabase = error as? StoreError { return true }
            return false
        }
        #expect(try Data(contentsOf: url) == garbage)
    }

    @Test func usesWriteAheadLoggingWithFullSynchronousMode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try SQLiteJournal(directory: directory.url)
        _ = try journal.append(.addQuote(QuoteDraft(text: "A", author: "B"), by: nil, at: date), quote: QuoteID(1))
        let probe = try SQLiteConnection(path: directory.url.appendingPathComponent("quotebook.sqlite3").path)
        #expect(try probe.prepare("PRAGMA journal_mode").rows { $0.text(at: 0) } == ["wal"])
        // https://sqlite.org/pragma.html#pragma_synchronous: 2 is FULL. The library's default is a
        // build option, so the configuring step is also checked from NORMAL (1).
        #expect(try journal.synchronousSetting == 2)
        try probe.execute("PRAGMA synchronous=NORMAL")
        try QuotebookDatabase.configureDurability(of: probe)
        #expect(try probe.prepare("PRAGMA synchronous").rows { $0.int(at: 0) } == [2])
        probe.close()
        journal.close()
    }
}

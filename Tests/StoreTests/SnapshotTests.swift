import Foundation
import Logging
import Store
import StoreSQLite
import Synchronization
import TestSupport
import Testing

/// Snapshots keep start-up short without changing what it rebuilds.
@Suite struct SnapshotTests {
    static let date = Date(timeIntervalSince1970: 1_000)

    static func edits(_ count: Int) -> [AppAction] {
        (1...count).map { version in
            .editQuote(QuoteID(1), QuoteDraft(text: "Edit \(version)", author: "A"), baseVersion: version, by: nil, at: date)
        }
    }

    @Test(arguments: JournalBackend.available)
    func reopeningFromASnapshotRebuildsTheSameStateAsAFullReplay(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let seed: [AppAction] = [.addQuote(QuoteDraft(text: "Seeded", author: "Someone"), by: nil, at: Self.date)]
            let store = try Store(journal: try location.open(), seed: seed, snapshotInterval: 3, logger: .discarding())
            for action in Self.edits(7) { _ = try await store.dispatch(action) }
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Second", author: "B"), by: nil, at: Self.date))
            let expected = store.state
            await store.close()

            let journal = try location.open()
            // Nine entries, snapshots every three: the newest covers entry 9, nothing left to replay.
            #expect(journal.loadSnapshot()?.sequence == 9)
            #expect(journal.loadSnapshot()?.state == expected)
            #expect(try journal.loadEntries(after: 6).count == 3)
            var replayed = AppState()
            for entry in try journal.loadAll() { _ = try AppReducer.reduce(&replayed, entry.action) }
            #expect(replayed == expected)
            let reopened = try Store(journal: journal, snapshotInterval: 3, logger: .discarding())
            #expect(reopened.state == expected)
            _ = try await reopened.dispatch(Self.edits(8)[7])
            #expect(reopened.state.quotes[QuoteID(1)]?.version == 9)
            await reopened.close()
        }
    }

    @Test func anUnreadableSnapshotFallsBackToTheWholeJournal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let seed: [AppAction] = [.addQuote(QuoteDraft(text: "Seeded", author: "Someone"), by: nil, at: Self.date)]
        let store = try Store(journal: try SQLiteJournal(directory: directory.url), seed: seed, snapshotInterval: 2, logger: .discarding())
        for action in Self.edits(4) { _ = try await store.dispatch(action) }
        let expected = store.state
        await store.close()

        // The snapshot file's header stays, its state becomes JSON: not a snapshot any more.
        let path = directory.url.appendingPathComponent("quotebook.sqlite3-snapshot").path
        let saved = try #require(FileManager.default.contents(atPath: path))
        #expect(FileManager.default.createFile(atPath: path, contents: saved.prefix(16) + Data("{\"not\": \"a state\"}".utf8)))
        #expect(try SQLiteJournal(path: directory.url.appendingPathComponent("quotebook.sqlite3").path).loadSnapshot() == nil)
        let reopened = try Store(journal: try SQLiteJournal(directory: directory.url), snapshotInterval: 2, logger: .discarding())
        #expect(reopened.state == expected)
        await reopened.close()
    }
}

/// Commit, then publish: a change the journal could not store is seen by no one.
@Suite struct StoreDurabilityTests {
    @Test(arguments: JournalBackend.available)
    func aFailedAppendLeavesStateAndObserversUntouched(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let probe = JournalProbe()
            let date = Date(timeIntervalSince1970: 1_000)
            let store = try Store(
                journal: ProbedJournal(try location.open(), probe: probe),
                seed: [.addQuote(QuoteDraft(text: "Seeded", author: "Someone"), by: nil, at: date)],
                logger: .discarding())
            let before = store.state
            let events = Mutex<[AppEvent]>([])
            store.observe { event in events.withLock { $0.append(event) } }
            probe.isFailing.store(true, ordering: .sequentiallyConsistent)

            await #expect(throws: StoreError.self) {
                try await store.dispatch(
                    .editQuote(QuoteID(1), QuoteDraft(text: "Lost", author: "Me"), baseVersion: 1, by: nil, at: date))
            }
            #expect(store.state == before)
            await store.close()
            #expect(events.withLock { $0 }.isEmpty)
        }
    }
}

import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// A SQLite journal's snapshot in `quotebook.sqlite3-snapshot`, saved while appends go on.
@Suite(.timeLimit(.minutes(1))) struct SnapshotFileTests {
    static let date = Date(timeIntervalSince1970: 1_000)

    static func add(_ text: String) -> AppAction {
        .addQuote(QuoteDraft(text: text, author: "A"), by: nil, at: date)
    }

    /// A journal of `count` added quotes in `directory`, and the state they make.
    static func journal(of count: Int, in directory: TemporaryDirectory) throws -> (SQLiteJournal, AppState) {
        let journal = try SQLiteJournal(directory: directory.url)
        var state = AppState()
        for index in 1...count {
            let action = add("Q\(index)")
            _ = try journal.append(action, quote: nil)
            _ = try AppReducer.reduce(&state, action)
        }
        return (journal, state)
    }

    @Test func aSnapshotPastTheJournalsNewestEntryIsNotThisJournalsAndIsIgnored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (journal, state) = try Self.journal(of: 3, in: directory)
        try journal.saveSnapshot(JournalSnapshot(sequence: 4, state: state))
        #expect(journal.loadSnapshot() == nil)
        try journal.saveSnapshot(JournalSnapshot(sequence: 3, state: state))
        #expect(journal.loadSnapshot()?.sequence == 3)
        journal.close()
    }

    @Test func anEarlierBuildsSnapshotInTheTableIsReadAndTheNewerOfTheTwoWins() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (journal, state) = try Self.journal(of: 3, in: directory)
        journal.close()
        // As an earlier build left it: the snapshot through entry 2 in the table, no file.
        var older = AppState()
        for index in 1...2 { _ = try AppReducer.reduce(&older, Self.add("Q\(index)")) }
        let database = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let raw = try SQLiteConnection(path: database)
        try raw.execute("INSERT INTO snapshot (id, sequence, state) VALUES (1, 2, x'\(Self.hex(SnapshotFormat.encode(older)))')")
        raw.close()

        let reopened = try SQLiteJournal(directory: directory.url)
        #expect(reopened.loadSnapshot() == JournalSnapshot(sequence: 2, state: older))
        try reopened.saveSnapshot(JournalSnapshot(sequence: 3, state: state))
        #expect(reopened.loadSnapshot() == JournalSnapshot(sequence: 3, state: state))
        reopened.close()
    }

    @Test func appendsGoOnWhileASnapshotIsSavedAndClosingWaitsForTheNewest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let saver = GatedSaver()
        let journal = GatedSnapshotJournal(try SQLiteJournal(directory: directory.url), saver: saver)
        if let real = journal.real { await saver.attach(real) }
        let store = try Store(journal: journal, snapshotInterval: 1, logger: .discarding())
        _ = try await store.dispatch(Self.add("one"))
        await saver.waitUntilSaving()
        // The save of entry 1 is held: these commit all the same.
        for text in ["two", "three", "four"] { _ = try await store.dispatch(Self.add(text)) }
        #expect(store.state.quotes.count == 4)
        #expect(await saver.saved.isEmpty)
        await saver.release()
        await store.close()
        // Entry 1's, then the newest due meanwhile (4), not every one in between.
        #expect(await saver.saved == [1, 4])
        let reopened = try SQLiteJournal(directory: directory.url)
        #expect(reopened.loadSnapshot()?.sequence == 4)
        reopened.close()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// A saver that holds every save until ``release()``, then writes the file as the real one
/// does, recording each sequence saved.
actor GatedSaver: SnapshotSaver {
    private var inner: (any SnapshotSaver)?
    private(set) var saved: [Int64] = []
    private var isReleased = false
    private var isSaving = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func attach(_ saver: any SnapshotSaver) { inner = saver }

    /// Returns once a save has begun (and is held).
    func waitUntilSaving() async {
        while !isSaving { try? await Task.sleep(for: .milliseconds(2)) }
    }

    func release() {
        isReleased = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func save(_ bytes: [UInt8], through sequence: Int64) async throws(StoreError) {
        isSaving = true
        if !isReleased { await withCheckedContinuation { waiters.append($0) } }
        try await inner?.save(bytes, through: sequence)
        saved.append(sequence)
    }

    func close() async {
        await inner?.close()
    }
}

/// A SQLite journal whose snapshots go through a ``GatedSaver`` (in front of its real one).
final class GatedSnapshotJournal: JournalWrapper {
    let inner: any JournalStorage
    private let saver: GatedSaver
    /// The journal's own saver, behind the gate.
    let real: (any SnapshotSaver)?

    init(_ inner: SQLiteJournal, saver: GatedSaver) {
        self.inner = inner
        self.saver = saver
        self.real = inner.makeSnapshotSaver()
    }

    func makeSnapshotSaver() -> (any SnapshotSaver)? { saver }
}

import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport

/// Times, in process, the parts of a start-up and of a request that grow with the book, on a
/// data directory made by `build`: what `scale.sh` cannot see from outside the server.
///
/// Phases, each the median of `runs`: loading the snapshot, reading and applying the journal
/// entries after it, saving a snapshot, a search (the index alone, no page), finding the quotes
/// of the person who added most (what a profile lists), and — on a copy of
/// the directory, as it writes — one dispatched edit.
struct PhaseTimer {
    let directory: URL
    let runs: Int

    func run() throws {
        let path = directory.appendingPathComponent("quotebook.sqlite3").path
        let journal = try SQLiteJournal(path: path)
        defer { journal.close() }
        var fingerprint: UInt64 = 0
        report("the fold's fingerprint (once a process)", try times(runs: 1) { fingerprint = SearchFolding.fingerprint }, note: String(fingerprint, radix: 16))
        var snapshot: JournalSnapshot?
        report("load snapshot", try times { snapshot = journal.loadSnapshot() })
        guard let loaded = snapshot.take() else {
            throw StoreError.sqlite(operation: "load snapshot", code: 0, message: "no readable snapshot")
        }
        var entries: [JournalEntry] = []
        report("read the entries after it", try times { entries = try journal.loadEntries(after: loaded.sequence) }, note: "\(entries.count) entries")
        // Once, on a state held only here, as start-up does (a shared one would be copied whole).
        guard var state = journal.loadSnapshot()?.state else { return }
        report("apply them", try times(runs: 1) {
            for entry in entries { _ = AppReducer.apply(entry.action, to: &state) }
        })
        var size = 0
        report("encode a snapshot", try times { size = SnapshotFormat.encode(loaded.state).count }, note: "\(size) bytes")
        // The same snapshot again, so the directory stays as it was built.
        report("save a snapshot", try times { try journal.saveSnapshot(loaded) }, note: "\(loaded.state.quotes.count) quotes")
        let published = state
        report("copy the state and edit one quote", try times {
            var next = published
            _ = AppReducer.apply(.setFavourite(UserID(1), QuoteID(1), at: Date()), to: &next)
            if let id = next.quoteOrder.last, let quote = next.quotes[id] {
                _ = AppReducer.apply(.editQuote(id, QuoteDraft(text: quote.text + " again", author: quote.author), baseVersion: quote.version, by: nil, at: Date()), to: &next)
            }
        }, note: "what a dispatch does before writing")
        for words in ["ecole", "garden silence", "lodz einstein", "the", "e", "xylophone"] {
            var found = 0
            report("search \"\(words)\"", try times { found = state.searchIndex.matches(SearchQuery(words)).count }, note: "\(found) matches")
        }
        print("search index: \(state.searchIndex.byteCount) bytes of folded text for \(state.quotes.count) quotes")
        // A profile lists the quotes its person added: found once per version of the state.
        let prolific = Dictionary(grouping: state.quotes.values.compactMap(\.addedBy), by: { $0 }).max { $0.value.count < $1.value.count }
        if let person = prolific?.key {
            var found = 0
            report("a person's quotes, each copied out", try times {
                found = state.quoteOrder.filter { state.quotes[$0]?.addedBy == person }.count
            }, note: "\(found) quotes")
            report("a person's quotes, ids(addedBy:)", try times { found = state.quotes.ids(addedBy: person).count }, note: "\(found) quotes")
        }
    }

    /// One edit dispatched through a store on a copy of the directory, `runs` times; then the
    /// same with a snapshot due after every edit, saved inline (as before snapshots had a saver
    /// of their own) and beside the appends (``SnapshotSaver``).
    func timeDispatch() async throws {
        report("dispatch one edit (synchronous=FULL)", try await dispatchTimes(snapshotInterval: .max, inline: false))
        report("  ...a snapshot due each, saved inline", try await dispatchTimes(snapshotInterval: 1, inline: true))
        report("  ...a snapshot due each, saved beside", try await dispatchTimes(snapshotInterval: 1, inline: false))
    }

    private func dispatchTimes(snapshotInterval: Int, inline: Bool) async throws -> [Double] {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("scale-dispatch-\(getpid())")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: directory, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let journal = try SQLiteJournal(directory: copy)
        let store = try Store(
            journal: inline ? InlineSnapshots(journal) : journal, snapshotInterval: snapshotInterval, logger: .discarding())
        var samples: [Double] = []
        for run in 0..<runs {
            guard let id = store.state.quoteOrder.last, let quote = store.state.quotes[id] else { break }
            let action = AppAction.editQuote(
                id, QuoteDraft(text: "Edited \(run) " + quote.text, author: quote.author), baseVersion: quote.version, by: nil, at: Date())
            let start = ContinuousClock.now
            _ = try await store.dispatch(action)
            samples.append(milliseconds(ContinuousClock.now - start))
        }
        await store.close()
        return samples
    }

    private func times(runs: Int? = nil, _ body: () throws -> Void) throws -> [Double] {
        try (0..<(runs ?? self.runs)).map { _ in
            let start = ContinuousClock.now
            try body()
            return milliseconds(ContinuousClock.now - start)
        }
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private func report(_ phase: String, _ samples: [Double], note: String = "") {
        let sorted = samples.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let numbers = String(format: "median %8.2f ms  (min %.2f, max %.2f)", median, sorted.first ?? 0, sorted.last ?? 0)
        print(phase.padding(toLength: 44, withPad: " ", startingAt: 0) + numbers + (note.isEmpty ? "" : "  " + note))
    }
}

/// A SQLite journal without a snapshot saver: its writer saves each snapshot between appends.
final class InlineSnapshots: JournalWrapper {
    let inner: any JournalStorage
    init(_ inner: SQLiteJournal) { self.inner = inner }
    func makeSnapshotSaver() -> (any SnapshotSaver)? { nil }
}

import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Synchronization

/// Times, in process, reading the newest page of a quote's history (50 of `versions` versions)
/// while nothing else happens and while `writers` tasks save other quotes as fast as the store
/// commits them: through the journal's own ``JournalHistoryReader`` connection, and through the
/// writer's queue between commits (how every history read went before the reader existed), and
/// the whole history through the writer's queue (what a history page read before it had pages).
/// The page's size is the same in the first two, so they differ only in where the read waits.
/// Reads are paced (one every 5 ms), so the saves counted meanwhile span the same time in each;
/// the three are measured `rounds` times, in turn, each on a store opened afresh.
struct HistoryTimer {
    let directory: URL
    let versions: Int
    let writers: Int
    let reads: Int
    let rounds: Int

    /// What the writer tasks share with the timer.
    final class Writing: Sendable {
        let stop = Atomic(false)
        let saves = Atomic(0)
    }

    /// The journal without its reader: the store reads history through the writer, between commits.
    final class WriterQueueReads: JournalWrapper {
        let inner: any JournalStorage
        init(_ inner: SQLiteJournal) { self.inner = inner }
        func makeHistoryReader() -> (any JournalHistoryReader)? { nil }
    }

    func run() async throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("quotebook.sqlite3").path
        try build(at: path)
        let newest = versions - 49...versions
        print("quote 1 has \(versions) versions; \(writers) writers save quotes 2 to \(writers + 1); \(reads) reads each, 5 ms apart")
        for round in 1...rounds {
            print("round \(round)")
            try await measure("page of 50, the reader's connection", path: path, besideWriter: true) {
                try await $0.history(of: QuoteID(1), versions: newest)
            }
            try await measure("page of 50, the writer's queue", path: path, besideWriter: false) {
                try await $0.history(of: QuoteID(1), versions: newest)
            }
            try await measure("all \(versions), the writer's queue", path: path, besideWriter: false) { try await $0.history(of: QuoteID(1)) }
        }
    }

    /// Quote 1 with `versions` versions and one quote per writer, appended in one transaction.
    private func build(at path: String) throws {
        let journal = try SQLiteJournal(path: path)
        defer { journal.close() }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        var entries: [(action: AppAction, quote: QuoteID?)] = [(.addQuote(QuoteDraft(text: "Version 1", author: "Bench"), by: nil, at: date), QuoteID(1))]
        for version in 1..<versions {
            entries.append((.editQuote(QuoteID(1), QuoteDraft(text: "Version \(version + 1)", author: "Bench"), baseVersion: version, by: nil, at: date), QuoteID(1)))
        }
        for writer in 1...writers {
            entries.append((.addQuote(QuoteDraft(text: "Writer \(writer)", author: "Bench"), by: nil, at: date), QuoteID(writer + 1)))
        }
        _ = try journal.append(entries)
    }

    private func measure(
        _ label: String, path: String, besideWriter: Bool, read: @escaping @Sendable (Store) async throws -> [QuoteVersion]
    ) async throws {
        let journal = try SQLiteJournal(path: path)
        let store = try Store(journal: besideWriter ? journal : WriterQueueReads(journal), logger: .discarding())
        let idle = try await times(read, on: store)
        let shared = Writing()
        let writers = self.writers
        let writing = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 1...writers {
                    group.addTask {
                        let id = QuoteID(writer + 1)
                        while !shared.stop.load(ordering: .relaxed) {
                            guard let version = store.state.quotes[id]?.version else { return }
                            let edit = AppAction.editQuote(id, QuoteDraft(text: "Saved over \(version)", author: "Bench"), baseVersion: version, by: nil, at: Date())
                            if case .success = try? await store.dispatch(edit) { shared.saves.add(1, ordering: .relaxed) }
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let before = shared.saves.load(ordering: .relaxed)
        let started = ContinuousClock.now
        let loaded = try await times(read, on: store)
        let elapsed = ContinuousClock.now - started
        let saved = shared.saves.load(ordering: .relaxed) - before
        shared.stop.store(true, ordering: .relaxed)
        await writing.value
        await store.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(label.padding(toLength: 38, withPad: " ", startingAt: 0) + "idle " + describe(idle) + "   under writers " + describe(loaded)
            + String(format: "   saves/s %.0f", Double(saved) / seconds))
    }

    private func times(_ read: @Sendable (Store) async throws -> [QuoteVersion], on store: Store) async throws -> [Double] {
        var samples: [Double] = []
        for _ in 0..<reads {
            let start = ContinuousClock.now
            let page = try await read(store)
            let elapsed = ContinuousClock.now - start
            guard page.last?.version == versions else {
                throw StoreError.sqlite(operation: "history", code: 0, message: "the page ends at \(page.last?.version ?? 0)")
            }
            samples.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            try await Task.sleep(for: .milliseconds(5))
        }
        return samples.sorted()
    }

    private func describe(_ sorted: [Double]) -> String {
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return String(format: "p50 %7.3f p99 %7.3f max %7.3f ms", at(0.5), at(0.99), sorted[sorted.count - 1])
    }
}

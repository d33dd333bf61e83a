import Foundation
import Store
import StoreSQLite

/// Times, in process, the byte search of a book's search index with nothing kept (what a search
/// for words not searched before costs, ``QuoteSearchIndex/search(_:)``): on the whole book made
/// by `build`, then on indexes of its first quotes only, to see where a search stops being quick
/// enough for an event loop.
struct SearchTimer {
    let directory: URL
    let runs: Int

    /// Words of the phases (`PhaseTimer`): common, rare, two words, an author, none at all.
    static let words = ["ecole", "garden silence", "lodz einstein", "the", "e", "xylophone"]

    func run() throws {
        let journal = try SQLiteJournal(path: directory.appendingPathComponent("quotebook.sqlite3").path)
        defer { journal.close() }
        guard let state = journal.loadSnapshot()?.state else {
            throw StoreError.sqlite(operation: "load snapshot", code: 0, message: "no readable snapshot")
        }
        print("whole book: \(state.quotes.count) quotes, \(state.searchIndex.byteCount) bytes of keys")
        for words in Self.words {
            var found = 0
            let query = SearchQuery(words)
            report("  search \"\(words)\"", times { found = state.searchIndex.search(query).count }, note: "\(found) matches")
        }
        for count in [500, 1_000, 2_000, 5_000, 10_000, 50_000] where count < state.quotes.count {
            var index = QuoteSearchIndex()
            for id in state.quoteOrder.prefix(count) {
                if let quote = state.quotes[id] { index.update(id, text: quote.text, author: quote.author) }
            }
            print("first \(count) quotes: \(index.byteCount) bytes of keys")
            for words in ["the", "e", "xylophone"] {
                var found = 0
                let query = SearchQuery(words)
                report("  search \"\(words)\"", times { found = index.search(query).count }, note: "\(found) matches")
            }
        }
    }

    private func times(_ body: () -> Void) -> [Double] {
        (0..<runs).map { _ in
            let start = ContinuousClock.now
            body()
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
    }

    private func report(_ phase: String, _ samples: [Double], note: String) {
        let sorted = samples.sorted()
        let numbers = String(format: "median %8.3f ms  (min %.3f, max %.3f)", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
        print(phase.padding(toLength: 36, withPad: " ", startingAt: 0) + numbers + "  " + note)
    }
}

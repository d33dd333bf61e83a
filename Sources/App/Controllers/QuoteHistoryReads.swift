import Store
import Synchronization

/// Pages of quotes' histories as read from the journal, by quote, the quote's current version
/// and page: a history page seen again costs a table look-up, not a journal read on another
/// thread.
///
/// Never stale: a quote at version `v` has exactly versions 1…`v`, and a written version never
/// changes (the journal is append-only), so a new version is a new key and the old entries are
/// never asked for again. Who made each version is looked up in the state at every request, so
/// a renamed editor shows their new name. A deleted quote is answered from the state before
/// this is asked. Empty reads (the quote deleted while reading) are not kept.
///
/// Bounded by versions held: past ``maximumVersions`` it starts over empty. Ownership: one
/// `Mutex` around the table, taken once per history page. Self-contained, so it can become a
/// generic bounded cache.
final class QuoteHistoryReads: Sendable {
    struct Key: Hashable, Sendable {
        let quote: QuoteID
        let version: Int
        let page: Int
    }

    let maximumVersions: Int
    private let table = Mutex((reads: [Key: [QuoteVersion]](), versions: 0))

    init(maximumVersions: Int = 20_000) {
        self.maximumVersions = maximumVersions
    }

    func versions(for key: Key) -> [QuoteVersion]? {
        table.withLock { $0.reads[key] }
    }

    func remember(_ versions: [QuoteVersion], for key: Key) {
        guard !versions.isEmpty, versions.count <= maximumVersions else { return }
        // The dropped table is released after the lock.
        _ = table.withLock { table -> [Key: [QuoteVersion]]? in
            var dropped: [Key: [QuoteVersion]]?
            if table.versions + versions.count > maximumVersions {
                dropped = table.reads
                table = ([:], 0)
            }
            if let old = table.reads.updateValue(versions, forKey: key) { table.versions -= old.count }
            table.versions += versions.count
            return dropped
        }
    }

    /// Pages held now (for tests).
    var count: Int { table.withLock { $0.reads.count } }
}

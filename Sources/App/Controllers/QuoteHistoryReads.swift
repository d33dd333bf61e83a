import Basics
import Store

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
/// Bounded by versions held: past ``maximumVersions`` it starts over empty. Kept in a ``BoundedCache`` costed by versions.
final class QuoteHistoryReads: Sendable {
    struct Key: Hashable, Sendable {
        let quote: QuoteID
        let version: Int
        let page: Int
    }

    let maximumVersions: Int
    private let table: BoundedCache<Key, [QuoteVersion]>

    init(maximumVersions: Int = 20_000) {
        self.maximumVersions = maximumVersions
        table = BoundedCache(costLimit: maximumVersions, cost: \.count)
    }

    func versions(for key: Key) -> [QuoteVersion]? {
        table.value(forKey: key)
    }

    func remember(_ versions: [QuoteVersion], for key: Key) {
        guard !versions.isEmpty else { return }
        table.insert(versions, forKey: key)
    }

    /// Pages held now (for tests).
    var count: Int { table.count }
}

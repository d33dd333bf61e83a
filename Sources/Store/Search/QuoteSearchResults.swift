import Synchronization

/// The ids each search found in one version of a ``QuoteSearchIndex``, by the query's folded
/// words: the same search again costs a dictionary look-up instead of a byte search of every key.
///
/// One belongs to one version of the index: the index makes a new, empty one whenever its keys
/// change, and copies of an unchanged index (the states the store publishes between writes)
/// share it. So a result is never served for keys other than the ones it was found in, with no
/// revision to compare and nothing to invalidate.
///
/// Bounded: at most ``maximumEntries`` searches and ``maximumIDs`` ids in all (a larger result is
/// not kept); when either would be passed it starts over empty (any text can be searched for; the
/// common searches come back at once).
///
/// Ownership: one `Mutex` around the dictionary, taken by every reader for one look-up or insert.
package final class QuoteSearchResults: Sendable {
    package static let maximumEntries = 512
    static let maximumIDs = 1 << 16

    private struct Entries {
        var ids: [[[UInt8]]: [QuoteID]] = [:]
        var idCount = 0
    }

    private let entries = Mutex(Entries())

    init() {}

    /// What the search for `words` found, if it was kept.
    func matches(for words: [[UInt8]]) -> [QuoteID]? {
        entries.withLock { $0.ids[words] }
    }

    /// Keeps `found` as what the search for `words` finds in this version of the index.
    func remember(_ found: [QuoteID], for words: [[UInt8]]) {
        guard found.count <= Self.maximumIDs else { return }
        // A dropped generation is released after the lock.
        _ = entries.withLock { entries -> Entries? in
            var dropped: Entries?
            if entries.ids.count >= Self.maximumEntries || entries.idCount + found.count > Self.maximumIDs {
                dropped = entries
                entries = Entries()
            }
            if let old = entries.ids.updateValue(found, forKey: words) { entries.idCount -= old.count }
            entries.idCount += found.count
            return dropped
        }
    }

    /// How many searches are kept now (for tests).
    var count: Int { entries.withLock { $0.ids.count } }
}

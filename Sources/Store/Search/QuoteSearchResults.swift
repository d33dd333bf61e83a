import Basics

/// The ids each search worth keeping found in one version of a ``QuoteSearchIndex``, by the
/// query's folded words (``SearchQuery/normalized``): the same search again costs a dictionary look-up instead of a byte
/// search of many keys (the index keeps only searches of more than
/// ``QuoteSearchIndex/keptAboveCandidates`` candidate keys, or any of a large index).
///
/// One belongs to one version of the index: the index makes a new, empty one whenever its keys
/// change, and copies of an unchanged index (the states the store publishes between writes)
/// share it. So a result is never served for keys other than the ones it was found in, with no
/// revision to compare and nothing to invalidate.
///
/// Bounded: a ``BoundedCache`` of at most ``maximumEntries`` searches and ``maximumIDs`` ids in
/// all (a larger result is not kept), which starts over empty when either would be passed (any
/// text can be searched for; the common searches come back at once).
///
/// Ownership: the results sit in the ``BoundedCache``'s `Mutex`, taken by every reader for one
/// look-up or insert.
package final class QuoteSearchResults: Sendable {
    package static let maximumEntries = 512
    static let maximumIDs = 1 << 16

    private let found = BoundedCache<[UInt8], [QuoteID]>(countLimit: maximumEntries, costLimit: maximumIDs) { $0.count }

    init() {}

    /// What the search for `words` found, if it was kept.
    func matches(for words: [UInt8]) -> [QuoteID]? {
        found.value(forKey: words)
    }

    /// Keeps `ids` as what the search for `words` finds in this version of the index.
    func remember(_ ids: [QuoteID], for words: [UInt8]) {
        found.insert(ids, forKey: words)
    }

    /// How many searches are kept now (for tests).
    var count: Int { found.count }
}

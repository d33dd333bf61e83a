package import Store

/// A journal that adds something to another one (a probe in tests, a benchmark's variation):
/// every requirement it does not implement itself goes to ``inner`` unchanged. Tests and
/// benchmarks only: the app opens its journals through `StoreBackend`.
package protocol JournalWrapper: JournalStorage {
    /// The journal that stores what is appended.
    var inner: any JournalStorage { get }
}

extension JournalWrapper {
    package func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry] { try inner.loadEntries(after: sequence) }
    package func loadSnapshot() -> JournalSnapshot? { inner.loadSnapshot() }
    package func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError) { try inner.saveSnapshot(snapshot) }
    package func makeSnapshotSaver() -> (any SnapshotSaver)? { inner.makeSnapshotSaver() }
    package func append(_ entries: [JournalRecord], basedOn base: Int64?) throws(StoreError) -> [Int64] {
        try inner.append(entries, basedOn: base)
    }
    package func lockHead() throws(StoreError) { try inner.lockHead() }
    package func unlockHead() { inner.unlockHead() }
    package func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        try inner.actions(forQuote: quote, offset: offset, limit: limit)
    }
    package func makeHistoryReader() -> (any JournalHistoryReader)? { inner.makeHistoryReader() }
    package func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion] { try inner.versions(madeBy: person) }
    package func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool { inner.followAppends(waking: wake) }
    package func close() { inner.close() }
}

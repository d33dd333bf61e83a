import Dispatch
import Foundation
import Store
import Synchronization
import TestSupport

/// What a test sees of, and does to, the ``ProbedJournal`` it handed to a store: shared because
/// the journal itself belongs to the store once handed over.
final class JournalProbe: Sendable {
    /// Appends that reached the journal with at least one entry: one transaction each.
    let transactions = Atomic<Int>(0)
    /// Entries stored so far (committed, so durable).
    let durableEntries = Atomic<Int>(0)
    /// While on, appends fail as they would on a full disk, storing nothing.
    let isFailing = Atomic<Bool>(false)
    /// Set before the store opens the journal: a shared journal then never wakes the store, as
    /// though every notification and poll were lost.
    let isDeaf = Atomic<Bool>(false)
    /// Set by ``holdNextAppend()``: the next append stops until ``release()``.
    private let isHolding = Atomic<Bool>(false)
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Makes the next append wait, on the journal's thread, until ``release()``.
    func holdNextAppend() {
        isHolding.store(true, ordering: .sequentiallyConsistent)
    }

    /// Returns once the held append has begun (the store's commit is then in flight).
    func waitUntilHeld() async {
        let held = self.held
        await offPool { held.wait() }
    }

    /// Lets the held append go on.
    func release() {
        released.signal()
    }

    /// Called by the journal at the start of each append.
    fileprivate func stopIfHeld() {
        guard isHolding.exchange(false, ordering: .sequentiallyConsistent) else { return }
        held.signal()
        released.wait()
    }
}

/// A journal that a ``JournalProbe`` counts, holds and breaks.
final class ProbedJournal: JournalStorage {
    private let inner: any JournalStorage
    private let probe: JournalProbe

    /// Wraps `inner`, the real journal that stores what is appended.
    init(_ inner: any JournalStorage, probe: JournalProbe) {
        self.inner = inner
        self.probe = probe
    }

    func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry] { try inner.loadEntries(after: sequence) }

    func loadSnapshot() -> JournalSnapshot? { inner.loadSnapshot() }

    func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError) { try inner.saveSnapshot(snapshot) }

    func append(_ entries: [(action: AppAction, quote: QuoteID?)], basedOn base: Int64?) throws(StoreError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        probe.stopIfHeld()
        probe.transactions.add(1, ordering: .sequentiallyConsistent)
        if probe.isFailing.load(ordering: .sequentiallyConsistent) {
            throw StoreError.sqlite(operation: "append", code: 13, message: "database or disk is full")
        }
        let sequences = try inner.append(entries, basedOn: base)
        probe.durableEntries.add(entries.count, ordering: .sequentiallyConsistent)
        return sequences
    }

    func actions(forQuote quote: QuoteID) throws(StoreError) -> [AppAction] { try inner.actions(forQuote: quote) }

    func followAppends(waking wake: AsyncStream<Void>.Continuation) -> Bool {
        guard probe.isDeaf.load(ordering: .sequentiallyConsistent) else { return inner.followAppends(waking: wake) }
        return inner.followAppends(waking: AsyncStream.makeStream(of: Void.self).continuation)
    }

    func close() { inner.close() }
}

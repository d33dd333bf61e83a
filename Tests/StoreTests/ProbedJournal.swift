import Dispatch
import Foundation
import Store
import StoreSQLite
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
    /// While on, and the journal has a rival, the rival appends an entry just before each
    /// append that does not hold the head: another process that always wins the race.
    let isOvertaken = Atomic<Bool>(false)
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
final class ProbedJournal: JournalWrapper {
    let inner: any JournalStorage
    private let probe: JournalProbe
    /// Another process's journal on the same log, for ``JournalProbe/isOvertaken``.
    private let rival: (any JournalStorage)?
    private var holdsHead = false

    /// Wraps `inner`, the real journal that stores what is appended; `rival` appends to the same
    /// log while the probe says the journal is overtaken.
    init(_ inner: any JournalStorage, probe: JournalProbe, rival: (any JournalStorage)? = nil) {
        self.inner = inner
        self.probe = probe
        self.rival = rival
    }

    /// The action a rival appends: a new quote, which never conflicts with anything.
    static let rivalAction = AppAction.addQuote(QuoteDraft(text: "Overtaking", author: "Rival"), by: nil, at: Date(timeIntervalSince1970: 0))

    func append(_ entries: [JournalRecord], basedOn base: Int64?) throws(StoreError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        probe.stopIfHeld()
        if let rival, !holdsHead, probe.isOvertaken.load(ordering: .sequentiallyConsistent) {
            _ = try rival.append([(Self.rivalAction, nil)])
        }
        holdsHead = false
        probe.transactions.add(1, ordering: .sequentiallyConsistent)
        if probe.isFailing.load(ordering: .sequentiallyConsistent) {
            throw StoreError.sqlite(operation: "append", code: 13, message: "database or disk is full")
        }
        let sequences = try inner.append(entries, basedOn: base)
        probe.durableEntries.add(entries.count, ordering: .sequentiallyConsistent)
        return sequences
    }

    func lockHead() throws(StoreError) {
        try inner.lockHead()
        holdsHead = true
    }

    func unlockHead() {
        holdsHead = false
        inner.unlockHead()
    }

    func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool {
        guard probe.isDeaf.load(ordering: .sequentiallyConsistent) else { return inner.followAppends(waking: wake) }
        return inner.followAppends(waking: AsyncStream.makeStream(of: Int64?.self).continuation)
    }

    func close() {
        inner.close()
        rival?.close()
    }
}

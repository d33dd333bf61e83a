import Foundation
package import Logging
import Synchronization

/// The model controller: holds ``AppState``, applies ``AppAction``s through the pure reducer,
/// and makes each one durable in the journal before anyone sees its effect.
///
/// Group commit: actions dispatched at the same time share one journal transaction, so one sync
/// of the file makes a whole batch durable (https://sqlite.org/wal.html, `synchronous=FULL`).
/// - Validation is sequential, in arrival order, on this actor, against ``tentative``: the
///   committed state plus every action accepted but not yet committed. Two edits from the same
///   version in one batch still give one success and one `.staleVersion`.
/// - At most one batch commits at a time, on the ``JournalWriter``'s own queue; while it does,
///   this actor is free (it only awaits the writer) and validates and queues new dispatches.
/// - The first dispatch to find no commit in flight becomes the *leader*: it commits itself and
///   everything queued behind it, publishes that batch, answers its followers and, when more
///   were queued meanwhile, hands the lead to the first of them. So batches follow each other
///   with no idle gap and no task of their own, and one writer alone pays no waiting at all.
/// - Only once a batch is durable are its actions published, one by one and in order: state and
///   revision, then middleware (with each action's own sequence), then observers,
///   then its callers get their answers. A refusal decided against uncommitted actions is also
///   answered only then, so no one sees a version that might yet be lost.
/// - A failed commit fails its whole batch and everything queued (validated on top of it) with
///   the ``StoreError``; ``tentative`` falls back to the published state, the last committed one.
///
/// A journal shared with other processes (PostgreSQL, behind several instances) is one ordered
/// log that every store follows; see `Store+Following.swift`. Each append names the entry its
/// validation rests on (``appliedSequence``) and the journal refuses it, storing nothing, when
/// another process appended since; the store then catches up, validates the batch again and
/// retries, and after a couple of refusals appends holding the journal's head, so it always
/// gets through. It also catches up when its journal wakes it, so others' changes reach its state,
/// observers. A journal only this process writes never refuses or wakes.
///
/// Ownership: the journal belongs to the ``JournalWriter``, which alone calls the database, on its own
/// serial dispatch queue. Everything else mutable is this actor's. It never blocks (it validates,
/// publishes and awaits the writer), so it is a default actor on the cooperative pool: reaching
/// it from a request's task needs no thread switch, and a lone save costs the same two switches
/// (to the writer's queue and back) that it cost when the store ran SQLite on a queue of its
/// own. The published state sits in a `Mutex` so readers take a consistent copy without
/// waiting for writers.
package actor Store {
    let writer: JournalWriter
    /// Reads history beside the writer, on a connection of its own; nil: the writer reads it
    /// between appends (an in-memory journal). See ``history(of:versions:)``.
    let historyReader: (any JournalHistoryReader)?
    /// Reads a person's versions for their export on a connection of its own again, so that
    /// one account exporting in a loop never makes a history page wait (issue 29).
    let exportReader: (any JournalHistoryReader)?
    /// False from the moment ``close()`` begins: history reads are refused from then on.
    private let readsHistory = Atomic(true)
    /// The state and its revision, which grows by one with every applied action (from 0 at start-up).
    let published: Mutex<PublishedState>
    /// ``published``'s revision, stored inside its lock each time it changes, so ``revision``
    /// reads it with one load: every signed-in page asks for it, and a lock taken for it was two
    /// atomic read-modify-writes on a word both event loops share.
    private let publishedRevision = Atomic<UInt64>(0)
    /// The published state plus every action accepted since: what the next action is validated against.
    var tentative: AppState
    /// The newest journal entry the published state includes: what the next append is based on.
    var appliedSequence: Int64
    /// ``appliedSequence`` once its state is published, for readers off the actor
    /// (``appliedJournalSequence``): it never runs ahead of the state they read.
    let publishedSequence: Atomic<Int64>
    /// True when other processes append to the journal too: then the store follows it, and a
    /// refusal is confirmed against the journal's newest entries before it is answered.
    let followsJournal: Bool
    /// Woken by the journal when others may have appended; finished by ``close()``.
    private let wakes: AsyncStream<Int64?>.Continuation
    /// True from the moment a leader takes a batch (or a catch-up begins) until a batch ends with
    /// nothing queued behind it. Invariant: `queued` is empty whenever this is false.
    var isCommitting = false
    /// Validated actions waiting for the commit in flight to end, oldest first.
    var queued: [QueuedAction] = []
    /// ``close()`` calls, and catch-ups, waiting for the commits in flight and queued to end.
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Called on the store's executor for every applied event before `dispatch` returns.
    let observers = Mutex<[@Sendable (AppEvent) -> Void]>([])
    let logger: Logger
    /// Sees every action and its outcome, in order (logging, metrics).
    let middleware: [any StoreMiddleware]
    /// Set by ``close()``: from then on dispatches throw ``StoreError/storeClosed(operation:)``
    /// (what was queued is still committed), as history reads do (``readsHistory``).
    package private(set) var isClosed = false

    /// Rebuilds the state from the journal's snapshot (if any) and the entries after it; when the
    /// journal is empty, applies and records `seed` first (the first start's content, in one
    /// transaction; when another process sharing the journal seeds it first, its seed is loaded
    /// instead). A new snapshot is taken every `snapshotInterval` entries this store appends.
    package init(
        journal: sending any JournalStorage, seed: [AppAction] = [], snapshotInterval: Int = 1000,
        middleware: [any StoreMiddleware] = [], logger: Logger
    ) throws {
        // Following starts first, so nothing appended while the state is rebuilt goes unnoticed.
        let (wakeStream, wakes) = AsyncStream.makeStream(of: Int64?.self, bufferingPolicy: .bufferingNewest(1))
        let followsJournal = journal.followAppends(waking: wakes)
        // Taken out of the snapshot, so the state is uniquely referenced and replay changes it in
        // place rather than copying every quote at the first change.
        var snapshot = journal.loadSnapshot()
        let snapshotSequence = snapshot?.sequence
        var state = snapshot.take()?.state ?? AppState()
        var lastSequence = snapshotSequence ?? 0
        var entries = try journal.loadEntries(after: lastSequence)
        var entriesSinceSnapshot = entries.count
        if entries.isEmpty, snapshotSequence == nil, !seed.isEmpty {
            if let seeded = try Self.record(seed, in: journal) {
                (state, lastSequence, entriesSinceSnapshot) = (seeded.state, seeded.sequence, seed.count)
            } else {
                entries = try journal.loadEntries(after: lastSequence)
                entriesSinceSnapshot = entries.count
            }
        }
        // Recorded actions are facts: validated once, when they were dispatched, and applied now
        // without asking again, so a rule tightened since never stops a start-up.
        for entry in entries {
            _ = AppReducer.apply(entry.action, to: &state)
            lastSequence = entry.sequence
        }
        self.historyReader = journal.makeHistoryReader()
        self.exportReader = journal.makeHistoryReader()
        self.writer = JournalWriter(
            journal: journal, state: state, through: lastSequence, entriesSinceSnapshot: entriesSinceSnapshot,
            snapshotInterval: snapshotInterval, logger: logger)
        self.published = Mutex(PublishedState(state, revision: 0))
        self.tentative = state
        self.appliedSequence = lastSequence
        self.publishedSequence = Atomic(lastSequence)
        self.followsJournal = followsJournal
        self.wakes = wakes
        self.logger = logger
        self.middleware = middleware
        logger.info("state rebuilt from \(snapshotSequence.map { "a snapshot at entry \($0) and " } ?? "")\(entries.count) journal entries")
        if followsJournal { startFollowing(wakeStream) }
    }

    /// Applies `seed` to an empty state and appends it to the empty `journal` in one transaction;
    /// returns the state and the last entry, or nil when another process sharing the journal
    /// appended first (its seed, then, which the caller loads).
    private static func record(_ seed: [AppAction], in journal: any JournalStorage) throws -> (state: AppState, sequence: Int64)? {
        var state = AppState()
        var records: [JournalRecord] = []
        for action in seed { records.append(JournalRecord(action, event: try AppReducer.reduce(&state, action))) }
        do throws(StoreError) {
            return (state, try journal.append(records, basedOn: 0).last ?? 0)
        } catch {
            guard case .journalBehind = error else { throw error }
            return nil
        }
    }

    /// The current state: a copy, consistent, never partly updated.
    package nonisolated var state: AppState {
        publishedState.state
    }

    /// The current state and its revision, shared: one retain, however many tables the state
    /// holds (``PublishedState``).
    package nonisolated var publishedState: PublishedState {
        published.withLock { $0 }
    }

    /// Grows by one with every applied action (0 at start-up): within this process, the same
    /// revision always means the same state, so pages use it in their `ETag`. Read it before the
    /// state, so a page is never tagged with a revision newer than what it shows.
    ///
    /// The load pairs with the store made inside ``published``'s lock: a reader that sees
    /// revision `r` and then reads the state waits for that lock, so it reads `r`'s state or a
    /// newer one, never an older.
    package nonisolated var revision: UInt64 {
        publishedRevision.load(ordering: .acquiring)
    }

    /// Makes `state` the published state, one revision on. The one it replaces is released
    /// after the lock, when this was its last reader: freeing a state's tables is not done
    /// while readers wait.
    func publish(_ state: AppState) {
        let replaced = published.withLock { current in
            let replaced = current
            current = PublishedState(state, revision: replaced.revision &+ 1)
            publishedRevision.store(current.revision, ordering: .releasing)
            return replaced
        }
        withExtendedLifetime(replaced) {}
    }

    /// How many validated actions wait for the commit in flight to end (for metrics and tests).
    package var queuedActionCount: Int {
        queued.count
    }

    /// Validates `action` against every action accepted before it, waits until it is durable in
    /// the journal (committed together with whatever else was dispatched meanwhile), and only then
    /// publishes the new state, tells middleware and observers, and returns.
    ///
    /// - Returns: what happened, or why the action was refused (nothing stored then).
    /// - Throws: ``StoreError/storeClosed(operation:)`` once ``close()`` has begun; another
    ///   ``StoreError`` when the journal cannot be written — for this action's batch or for one it
    ///   was validated on top of. Either way the state is unchanged.
    package func dispatch(_ action: AppAction) async throws(StoreError) -> Result<AppEvent, ActionRejection> {
        guard !isClosed else { throw StoreError.storeClosed(operation: "dispatch") }
        let validated = validate(action)
        if isCommitting {
            switch await withCheckedContinuation({ queued.append(QueuedAction(validated: validated, waiter: $0)) }) {
            case .answered(let answer): return try answer.get()
            case .lead(let revalidated): return try await commit(leading: revalidated)
            }
        } else if case .refused(let rejection) = validated.outcome, !followsJournal {
            // Nothing accepted is still uncommitted, so the refusal rests on durable state alone.
            for link in middleware { link.refused(action, because: rejection) }
            return .failure(rejection)
        }
        isCommitting = true
        return try await commit(leading: validated)
    }

    /// Runs `action` through the reducer against ``tentative``, which it advances when accepted.
    func validate(_ action: AppAction) -> ValidatedAction {
        var next = tentative
        do {
            let event = try AppReducer.reduce(&next, action)
            tentative = next
            return ValidatedAction(action: action, outcome: .accepted(event, state: next))
        } catch {
            return ValidatedAction(action: action, outcome: .refused(error))
        }
    }

    /// Every version of quote `id`, oldest first, read from the journal (the state keeps only the
    /// current one); empty when there is no such quote. A long history is better read a page at a
    /// time: ``history(of:versions:)``.
    package nonisolated func history(of id: QuoteID) async throws(StoreError) -> [QuoteVersion] {
        guard readsHistory.load(ordering: .acquiring) else { throw StoreError.storeClosed(operation: "history") }
        guard publishedState.state.quotes[id] != nil else { return [] }
        return try await history(of: id, versions: 1...Int.max)
    }

    /// Versions `versions` of quote `id` (those of them that exist), oldest first, read from the
    /// journal: only their entries, found through the journal's index by quote (the entry at
    /// offset `k` made version `k + 1`). Empty when the quote was deleted among them.
    ///
    /// Off the actor and off the writer: on the journal's ``JournalHistoryReader``, a connection
    /// of its own, so a history page never queues behind the commits in flight, however many
    /// people save meanwhile (an in-memory journal has no second connection; the writer reads
    /// it between batches). Every version the published state shows is there: a version is
    /// published only once its entry is committed.
    package nonisolated func history(of id: QuoteID, versions: ClosedRange<Int>) async throws(StoreError) -> [QuoteVersion] {
        guard readsHistory.load(ordering: .acquiring) else { throw StoreError.storeClosed(operation: "history") }
        let first = max(1, versions.lowerBound)
        guard first <= versions.upperBound else { return [] }
        let (offset, limit) = (first - 1, versions.upperBound - first + 1)
        let actions: [AppAction]
        if let historyReader {
            actions = try await historyReader.actions(forQuote: id, offset: offset, limit: limit)
        } else {
            actions = try await writer.actions(forQuote: id, offset: offset, limit: limit)
        }
        return QuoteVersion.versions(from: actions, startingAt: first)
    }

    /// Every version `person` made, of any quote (deleted ones too), oldest first, read from the
    /// journal like ``history(of:versions:)``: off the actor and off the writer, on a
    /// ``JournalHistoryReader`` of its own when the journal has one (not the history pages'), so
    /// exports never hold up history pages. Includes every version the published state shows.
    package nonisolated func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion] {
        guard readsHistory.load(ordering: .acquiring) else { throw StoreError.storeClosed(operation: "versions") }
        if let exportReader { return try await exportReader.versions(madeBy: person) }
        return try await writer.versions(madeBy: person)
    }

    /// Calls `observer` with every event applied from now on, synchronously, after the new state
    /// is published and before the dispatch that applied it returns — so a cache it invalidates
    /// is never stale once a change has been answered. `observer` must be quick and never block.
    package nonisolated func observe(_ observer: @escaping @Sendable (AppEvent) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Refuses dispatches from now on, waits for the batch in flight and everything queued to be
    /// committed (or to fail, answered either way: nothing acknowledged is lost), then closes
    /// the journal.
    package func close() async {
        isClosed = true
        readsHistory.store(false, ordering: .releasing)
        wakes.finish()
        if isCommitting { await withCheckedContinuation { idleWaiters.append($0) } }
        // Before the journal: a SQLite journal's own connection must close last, to checkpoint.
        await historyReader?.close()
        await exportReader?.close()
        await writer.close()
    }
}

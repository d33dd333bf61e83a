import Foundation
package import Logging
import Synchronization

/// The model controller: holds ``AppState``, applies ``AppAction``s through the pure reducer,
/// and makes each one durable in the journal before anyone sees its effect.
///
/// Ownership: the journal (and its SQLite connection) is touched only by this actor, which runs
/// on its own serial dispatch queue, so SQLite never blocks the cooperative pool. The published
/// state sits in a `Mutex` so readers take a consistent copy without waiting for writers.
package actor Store {
    private let executor = DispatchQueueExecutor(label: "quotebook.store")
    private let journal: any JournalStorage
    /// The state and its revision, which grows by one with every applied action (from 0 at start-up).
    private let published: Mutex<(state: AppState, revision: UInt64)>
    private var subscribers: [UUID: AsyncStream<AppEvent>.Continuation] = [:]
    /// Called on the store's queue for every applied event before `dispatch` returns.
    private let observers = Mutex<[@Sendable (AppEvent) -> Void]>([])
    private let logger: Logger
    /// Sees every action and its outcome, in order (logging, metrics).
    private let middleware: [any StoreMiddleware]
    private var isClosed = false
    /// Snapshot the state after this many journal entries, so start-up replays at most that many.
    private let snapshotInterval: Int
    /// The sequence number of the last entry applied to the published state.
    private var lastSequence: Int64
    private var entriesSinceSnapshot: Int

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Rebuilds the state from the journal's snapshot (if any) and the entries after it; when the
    /// journal is empty, applies and records `seed` first (the first start's content). A new
    /// snapshot is taken every `snapshotInterval` entries.
    package init(
        journal: sending any JournalStorage, seed: [AppAction] = [], snapshotInterval: Int = 1000,
        middleware: [any StoreMiddleware] = [], logger: Logger
    ) throws {
        // Taken out of the snapshot, so the state is uniquely referenced and replay changes it in
        // place rather than copying every quote at the first change.
        var snapshot = journal.loadSnapshot()
        let snapshotSequence = snapshot?.sequence
        var state = snapshot.take()?.state ?? AppState()
        var lastSequence = snapshotSequence ?? 0
        let entries = try journal.loadEntries(after: lastSequence)
        // Recorded actions are facts: validated once, when they were dispatched, and applied now
        // without asking again, so a rule tightened since never stops a start-up.
        for entry in entries {
            _ = AppReducer.apply(entry.action, to: &state)
            lastSequence = entry.sequence
        }
        var entriesSinceSnapshot = entries.count
        if entries.isEmpty, snapshotSequence == nil {
            for action in seed {
                let event = try AppReducer.reduce(&state, action)
                lastSequence = try journal.append(action, quote: event.quoteID)
                entriesSinceSnapshot += 1
            }
        }
        let snapshotInterval = max(1, snapshotInterval)
        if entriesSinceSnapshot >= snapshotInterval,
            Self.saveSnapshot(of: state, through: lastSequence, in: journal, logger: logger)
        {
            entriesSinceSnapshot = 0
        }
        self.journal = journal
        self.published = Mutex((state, 0))
        self.logger = logger
        self.middleware = middleware
        self.snapshotInterval = snapshotInterval
        self.lastSequence = lastSequence
        self.entriesSinceSnapshot = entriesSinceSnapshot
        logger.info("state rebuilt from \(snapshotSequence.map { "a snapshot at entry \($0) and " } ?? "")\(entries.count) journal entries")
    }

    /// Saves `state` as the snapshot through entry `sequence`; false (logged) when it could not.
    /// A snapshot is derived data, so a failure costs only a longer replay at the next start.
    private static func saveSnapshot(
        of state: AppState, through sequence: Int64, in journal: any JournalStorage, logger: Logger
    ) -> Bool {
        do {
            try journal.saveSnapshot(JournalSnapshot(sequence: sequence, state: state))
            return true
        } catch {
            logger.warning("could not save a snapshot: \(error)")
            return false
        }
    }

    /// The current state: a copy, consistent, never partly updated.
    package nonisolated var state: AppState {
        published.withLock { $0.state }
    }

    /// Grows by one with every applied action (0 at start-up): within this process, the same
    /// revision always means the same state, so pages use it in their `ETag`. Read it before the
    /// state, so a page is never tagged with a revision newer than what it shows.
    package nonisolated var revision: UInt64 {
        published.withLock { $0.revision }
    }

    /// Validates `action` with the reducer, appends it to the journal and commits, and only then
    /// publishes the new state and tells subscribers.
    ///
    /// - Returns: what happened, or why the action was refused (nothing stored then).
    /// - Throws: ``StoreError`` when the journal cannot be written; the state is unchanged.
    package func dispatch(_ action: AppAction) throws(StoreError) -> Result<AppEvent, ActionRejection> {
        guard !isClosed else { throw StoreError.sqlite(operation: "dispatch", code: 21, message: "store closed") }
        var next = published.withLock { $0.state }
        let event: AppEvent
        do {
            event = try AppReducer.reduce(&next, action)
        } catch {
            for link in middleware { link.refused(action, because: error) }
            return .failure(error)
        }
        lastSequence = try journal.append(action, quote: event.quoteID)
        published.withLock { $0 = (next, $0.revision &+ 1) }
        entriesSinceSnapshot += 1
        if entriesSinceSnapshot >= snapshotInterval,
            Self.saveSnapshot(of: next, through: lastSequence, in: journal, logger: logger)
        {
            entriesSinceSnapshot = 0
        }
        for link in middleware { link.applied(action, event: event, sequence: lastSequence) }
        for observer in observers.withLock({ $0 }) { observer(event) }
        for continuation in subscribers.values { continuation.yield(event) }
        return .success(event)
    }

    /// Every version of quote `id`, oldest first, read from the journal (the state keeps only the
    /// current one); empty when there is no such quote.
    package func history(of id: QuoteID) throws(StoreError) -> [QuoteVersion] {
        guard !isClosed else { throw StoreError.sqlite(operation: "history", code: 21, message: "store closed") }
        guard published.withLock({ $0.state.quotes[id] }) != nil else { return [] }
        return QuoteVersion.history(from: try journal.actions(forQuote: id))
    }

    /// Calls `observer` with every event applied from now on, synchronously, after the new state
    /// is published and before the dispatch that applied it returns — so a cache it invalidates
    /// is never stale once a change has been answered. `observer` must be quick and never block.
    package nonisolated func observe(_ observer: @escaping @Sendable (AppEvent) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// A stream of every event applied from now on; it ends when the consumer stops iterating
    /// or the store closes.
    package func subscribe() -> AsyncStream<AppEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    /// Ends subscriptions and closes the journal; later dispatches fail.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        journal.close()
    }
}

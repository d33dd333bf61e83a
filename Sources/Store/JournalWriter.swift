import Basics
import Logging

/// The journal's owner once the store is running: appends each batch the store hands it in one
/// transaction, saves a snapshot every `snapshotInterval` entries, and reads, from a shared
/// journal, the entries other processes appended (and a quote's history, when the journal has no
/// ``JournalHistoryReader`` of its own).
///
/// Ownership: the journal (and its database connection) is touched only by this actor, which runs
/// on its own serial dispatch queue. The database's blocking calls — above all the sync of the WAL
/// or the round trip of each commit — therefore hold neither a cooperative-pool thread nor the ``Store``'s executor:
/// while a batch commits here, the store goes on validating the next one.
actor JournalWriter {
    private let executor = DispatchQueueExecutor(label: "quotebook.journal")
    private let journal: any JournalStorage
    private let logger: Logger
    /// Snapshot the state after this many journal entries, so start-up replays at most that many.
    private let snapshotInterval: Int
    /// Entries appended since the newest snapshot (or since the journal began, when there is none).
    private var entriesSinceSnapshot: Int
    private var isClosed = false
    /// Saves snapshots beside the journal's connection, when the journal has a way (see
    /// ``JournalStorage/makeSnapshotSaver()``); nil: they are saved here, between appends.
    private let snapshotSaver: (any SnapshotSaver)?
    /// The snapshot being encoded and saved by ``snapshotSaver``, one at a time.
    private var snapshotInFlight: Task<Void, Never>?
    /// The newest snapshot due while another was being saved: saved next.
    private var pendingSnapshot: (state: AppState, sequence: Int64)?

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Takes over `journal`, whose entries through `sequence` rebuild `state`; `entriesSinceSnapshot`
    /// of them came after the newest snapshot, and when that is already `snapshotInterval` or more,
    /// `state` is saved as the snapshot now.
    init(
        journal: sending any JournalStorage, state: AppState, through sequence: Int64, entriesSinceSnapshot: Int,
        snapshotInterval: Int, logger: Logger
    ) {
        self.snapshotSaver = journal.makeSnapshotSaver()
        self.journal = journal
        self.logger = logger
        self.snapshotInterval = max(1, snapshotInterval)
        self.entriesSinceSnapshot = entriesSinceSnapshot
        if entriesSinceSnapshot >= self.snapshotInterval,
            Self.saveSnapshot(of: state, through: sequence, in: journal, logger: logger)
        {
            self.entriesSinceSnapshot = 0
        }
    }

    /// Appends `entries`, validated against the state through entry `base`, in one transaction
    /// and returns their sequence numbers once they are durable; `state` is the state after the
    /// last of them, saved as the snapshot when this batch brings the count since the last one to
    /// `snapshotInterval`: by the ``SnapshotSaver`` while the next batches append (one at a
    /// time: one due meanwhile waits its turn, replaced by any newer one), or, without a saver,
    /// before returning.
    ///
    /// - Throws: ``StoreError/journalBehind(head:)`` when a shared journal holds entries after
    ///   `base`; another ``StoreError`` when the journal cannot be written. Either way none of
    ///   `entries` is stored.
    func append(
        _ entries: [JournalRecord], basedOn base: Int64, resulting state: AppState
    ) throws(StoreError) -> [Int64] {
        guard !isClosed else { throw StoreError.journalClosed(operation: "append") }
        let sequences = try journal.append(entries, basedOn: base)
        guard sequences.count == entries.count else {
            throw StoreError.database(
                .journal(operation: "append", message: "\(sequences.count) sequence numbers for \(entries.count) entries"))
        }
        entriesSinceSnapshot += sequences.count
        // A deleted account is erased from the journal in the append; the snapshot still names
        // them until the next one, so that one is due now.
        let erases = entries.contains { if case .deleteAccount = $0.action { true } else { false } }
        guard let last = sequences.last, entriesSinceSnapshot >= snapshotInterval || erases else { return sequences }
        if let snapshotSaver {
            entriesSinceSnapshot = 0
            if snapshotInFlight == nil {
                startSaving(state, through: last, with: snapshotSaver)
            } else {
                pendingSnapshot = (state, last)
            }
        } else if Self.saveSnapshot(of: state, through: last, in: journal, logger: logger) {
            entriesSinceSnapshot = 0
        }
        return sequences
    }

    /// Holds a shared journal's head until the next ``append(_:basedOn:resulting:)`` or
    /// ``unlockHead()``: no other process appends meanwhile (see ``JournalStorage/lockHead()``).
    func lockHead() throws(StoreError) {
        guard !isClosed else { throw StoreError.journalClosed(operation: "lock the head") }
        try journal.lockHead()
    }

    /// Lets go of the head ``lockHead()`` held, appending nothing.
    func unlockHead() {
        journal.unlockHead()
    }

    /// The entries after `sequence`, oldest first: those other processes appended to a shared journal.
    func entries(after sequence: Int64) throws(StoreError) -> [JournalEntry] {
        guard !isClosed else { throw StoreError.journalClosed(operation: "load entries") }
        return try journal.loadEntries(after: sequence)
    }

    /// A page of the actions indexed under `quote`, oldest first (see
    /// ``JournalStorage/actions(forQuote:offset:limit:)``), for a journal without a
    /// ``JournalHistoryReader``: read here, between appends.
    func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        guard !isClosed else { throw StoreError.journalClosed(operation: "history") }
        return try journal.actions(forQuote: quote, offset: offset, limit: limit)
    }

    /// Every version `person` made (see ``JournalStorage/versions(madeBy:)``), for a journal
    /// without a ``JournalHistoryReader``: read here, between appends.
    func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion] {
        guard !isClosed else { throw StoreError.journalClosed(operation: "versions") }
        return try journal.versions(madeBy: person)
    }

    /// Encodes and saves `state` off this actor (encoding 100,000 quotes takes 40–60 ms, encoding
    /// and writing them about 140 ms, on a 2-vCPU AMD EPYC: `ScaleBenchmark phases`), then starts the
    /// pending one, if any.
    private func startSaving(_ state: AppState, through sequence: Int64, with saver: any SnapshotSaver) {
        let logger = self.logger
        snapshotInFlight = Task.detached { [weak self] in
            do {
                try await saver.save(SnapshotFormat.encode(state), through: sequence)
            } catch {
                logger.warning("could not save a snapshot: \(error)")
            }
            await self?.snapshotSaved(with: saver)
        }
    }

    /// The snapshot in flight is stored (or failed, logged): the pending one goes next.
    private func snapshotSaved(with saver: any SnapshotSaver) {
        snapshotInFlight = nil
        guard let pending = pendingSnapshot else { return }
        pendingSnapshot = nil
        startSaving(pending.state, through: pending.sequence, with: saver)
    }

    /// Waits for a snapshot being saved, then closes the journal; later calls do nothing, and
    /// later appends and reads throw ``StoreError/journalClosed(operation:)``.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        // The one in flight, then the pending one it starts: the newest due is saved.
        while let saving = snapshotInFlight { await saving.value }
        await snapshotSaver?.close()
        journal.close()
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
}

import Foundation

/// One recorded action with its position in the journal.
package struct JournalEntry: Sendable, Equatable {
    package var sequence: Int64
    package var action: AppAction

    package init(sequence: Int64, action: AppAction) {
        self.sequence = sequence
        self.action = action
    }
}

/// An action to append, with what it is indexed under: the quote it changed (its history) and
/// the person it is about (whose entries a deletion erases).
package struct JournalRecord: Sendable, Equatable {
    package var action: AppAction
    package var quote: QuoteID?
    package var person: UserID?
    /// For an entry that made versions of many quotes (a revert), each version as the action
    /// that made it, indexed under its quote beside the entry: a history reads it where it reads
    /// an entry of its own quote.
    package var versions: [QuoteVersionRecord]

    package init(_ action: AppAction, quote: QuoteID? = nil, person: UserID? = nil, versions: [QuoteVersionRecord] = []) {
        self.action = action
        self.quote = quote
        self.person = person
        self.versions = versions
    }

    /// `action`, indexed by what applying it did.
    package init(_ action: AppAction, event: AppEvent) {
        self.init(action, quote: event.historyQuoteID, person: event.personID, versions: Self.versions(of: action, event: event))
    }

    /// The versions a revert made, each as the restore that made it: by the moderator, from the
    /// version its plan named.
    private static func versions(of action: AppAction, event: AppEvent) -> [QuoteVersionRecord] {
        guard case let .revertEdits(_, moderator, _, date, plan) = action, case let .reverted(_, restored, _) = event, !restored.isEmpty
        else { return [] }
        // The step each version was made from: a quote's first in the plan (a later one for the
        // same quote found it at another version, and was skipped).
        let steps = Dictionary(plan.restores.map { ($0.quote, $0) }, uniquingKeysWith: { first, _ in first })
        return restored.compactMap { made in
            steps[made.quote].map { step in
                QuoteVersionRecord(quote: step.quote, action: .restoreQuote(step.quote, step.draft, fromVersion: step.fromVersion, by: moderator, at: date))
            }
        }
    }

    /// Each quote this entry is in the history of, with the action history reads for it there.
    package var historyActions: [QuoteVersionRecord] {
        (quote.map { [QuoteVersionRecord(quote: $0, action: action)] } ?? []) + versions
    }
}

/// One version an entry made of a quote it is not indexed under (see ``JournalRecord/versions``).
package struct QuoteVersionRecord: Sendable, Equatable {
    package var quote: QuoteID
    package var action: AppAction

    package init(quote: QuoteID, action: AppAction) {
        self.quote = quote
        self.action = action
    }
}

/// The state after every journal entry up to and including `sequence`.
package struct JournalSnapshot: Sendable, Equatable {
    package var sequence: Int64
    package var state: AppState

    package init(sequence: Int64, state: AppState) {
        self.sequence = sequence
        self.state = state
    }
}

/// Durable, append-only storage of actions: the only thing the store persists.
///
/// Implementations are owned by one store: used by its initialiser, then only from its
/// ``JournalWriter``'s executor. A journal may be shared with other processes (PostgreSQL's,
/// behind several instances): it is then one ordered log that every store follows, which
/// ``append(_:basedOn:)`` and ``followAppends(waking:)`` are for.
package protocol JournalStorage: AnyObject {
    /// The entries after `sequence`, oldest first.
    func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry]
    /// The newest snapshot: the state after every entry up to and including `sequence`; nil when
    /// there is none or it cannot be read (then the whole journal is replayed).
    func loadSnapshot() -> JournalSnapshot?
    /// Replaces the snapshot. A snapshot is derived data: losing one only costs a longer replay.
    func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError)
    /// Something that saves snapshots without this journal's connection, while appends go on;
    /// nil (the default) when there is none, and the writer saves them between appends.
    func makeSnapshotSaver() -> (any SnapshotSaver)?
    /// Appends `records` in order, each indexed under its quote and its person when it has one
    /// (and its ``JournalRecord/versions`` each under theirs), in one transaction: all of them are durable together (one sync of the file) before this
    /// returns their sequence numbers, one per entry and increasing, or none is stored and it
    /// throws. Nothing happens for no records.
    ///
    /// Erasure: a ``AppAction/deleteAccount(_:at:)`` record rewrites, in the same transaction,
    /// every earlier entry indexed under its person (sign-up, name, photo, favourite, password)
    /// as ``AppAction/erased(_:)``, so the journal keeps nothing that names them; quote entries
    /// are indexed under their quote, not their person, and stay.
    ///
    /// `base` is the newest entry the caller's state includes, the state the entries were
    /// validated against. A shared journal whose newest entry is another one stores nothing and
    /// throws ``StoreError/journalBehind(head:)``, checked inside the transaction, so two
    /// processes can never both append on top of the same entry. nil appends unconditionally
    /// (tools and tests). A journal only its own process writes never refuses.
    func append(_ records: [JournalRecord], basedOn base: Int64?) throws(StoreError) -> [Int64]
    /// For a shared journal: holds its head so that no other process can append until the next
    /// ``append(_:basedOn:)`` (which then cannot be refused as behind) or ``unlockHead()``.
    /// A journal only its own process writes has nothing to hold and does nothing.
    func lockHead() throws(StoreError)
    /// Lets go of the head ``lockHead()`` held without appending; nothing when none is held.
    func unlockHead()
    /// The actions indexed under `quote`, oldest first, after skipping the first `offset`, at
    /// most `limit` of them: a page of its history. While the quote exists, the entry at offset
    /// `k` is the action that made its version `k + 1` (the add, then each edit or restore; for a
    /// version a revert made, the restore its ``JournalRecord/versions`` recorded).
    func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction]
    /// Something that reads history on a connection of its own, so a history page never waits
    /// for the appends queued on this journal's connection (nor they for it); nil (the default)
    /// when there is no second way in (an in-memory database), and the writer reads it between
    /// appends.
    func makeHistoryReader() -> (any JournalHistoryReader)?
    /// Every version `person` made (adds, edits, restores) of any quote, deleted ones too while
    /// the journal holds their entries, oldest first: a walk of the entries indexed under a
    /// quote, in sequence order, through a ``MadeVersionTally``. Reads the whole index: for an
    /// export, not a page.
    func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion]
    /// For a journal other processes append to: from now until ``close()``, yields to `wake`
    /// whenever they may have appended (and now and then in any case), so the store reads the
    /// entries after its own; returns true. What it yields is the log's head when a notification
    /// said so (a store already there has nothing to read: its own commit, say), or nil when
    /// anything may have been missed (a poll, a reconnection). A journal only its own store
    /// writes returns false and never yields.
    func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool
    /// Releases the underlying database.
    func close()
}

extension JournalStorage {
    package func makeSnapshotSaver() -> (any SnapshotSaver)? { nil }

    package func makeHistoryReader() -> (any JournalHistoryReader)? { nil }

    /// The actions indexed under `quote`, oldest first: its whole history.
    package func actions(forQuote quote: QuoteID) throws(StoreError) -> [AppAction] {
        try actions(forQuote: quote, offset: 0, limit: .max)
    }

    /// Appends `entries`, indexed under their quotes only (tools and tests); see ``append(_:basedOn:)``.
    package func append(_ entries: [(action: AppAction, quote: QuoteID?)], basedOn base: Int64? = nil) throws(StoreError) -> [Int64] {
        try append(entries.map { JournalRecord($0.action, quote: $0.quote) }, basedOn: base)
    }

    /// Appends `action` alone, indexed under `quote` when it changed one, and makes it durable
    /// before returning its sequence number.
    package func append(_ action: AppAction, quote: QuoteID?) throws(StoreError) -> Int64 {
        guard let sequence = try append([JournalRecord(action, quote: quote)], basedOn: nil).first else {
            throw StoreError.database(.journal(operation: "append", message: "the journal returned no sequence number"))
        }
        return sequence
    }

    /// Every entry ever appended, oldest first.
    package func loadAll() throws(StoreError) -> [JournalEntry] {
        try loadEntries(after: 0)
    }

    /// Only this process writes the journal: no one else can append, so there is nothing to hold.
    package func lockHead() throws(StoreError) {}

    /// Nothing was held.
    package func unlockHead() {}

    /// Only this process writes the journal: there is nothing to follow.
    package func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool {
        false
    }
}

/// Reads a journal's history away from the connection that appends to it (see
/// ``JournalStorage/makeHistoryReader()``): a read never queues behind a commit, nor a commit
/// behind a read. Never blocks a cooperative-pool thread.
package protocol JournalHistoryReader: Sendable {
    /// ``JournalStorage/actions(forQuote:offset:limit:)``, as committed when the read begins.
    func actions(forQuote quote: QuoteID, offset: Int, limit: Int) async throws(StoreError) -> [AppAction]
    /// ``JournalStorage/versions(madeBy:)``, as committed when the read begins.
    func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion]
    /// Releases the connection; later reads throw ``StoreError/journalClosed(operation:)``.
    func close() async
}

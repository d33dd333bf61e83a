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
/// Implementations are owned by one store and used only from its executor.
package protocol JournalStorage: AnyObject {
    /// The entries after `sequence`, oldest first.
    func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry]
    /// The newest snapshot: the state after every entry up to and including `sequence`; nil when
    /// there is none or it cannot be read (then the whole journal is replayed).
    func loadSnapshot() -> JournalSnapshot?
    /// Replaces the snapshot. A snapshot is derived data: losing one only costs a longer replay.
    func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError)
    /// Appends `action`, indexed under `quote` when it changed one, and makes it durable before
    /// returning its sequence number.
    func append(_ action: AppAction, quote: QuoteID?) throws(StoreError) -> Int64
    /// The actions indexed under `quote`, oldest first: its whole history.
    func actions(forQuote quote: QuoteID) throws(StoreError) -> [AppAction]
    /// Releases the underlying database.
    func close()
}

extension JournalStorage {
    /// Every entry ever appended, oldest first.
    package func loadAll() throws(StoreError) -> [JournalEntry] {
        try loadEntries(after: 0)
    }
}

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

/// Durable, append-only storage of actions: the only thing the store persists.
///
/// Implementations are owned by one store and used only from its executor.
package protocol JournalStorage: AnyObject {
    /// Every entry ever appended, oldest first.
    func loadAll() throws(StoreError) -> [JournalEntry]
    /// Appends `action` and makes it durable before returning its sequence number.
    func append(_ action: AppAction) throws(StoreError) -> Int64
    /// Releases the underlying database.
    func close()
}

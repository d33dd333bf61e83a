/// Infrastructure failures of the store; expected outcomes (not found, stale version) are
/// ``ActionRejection`` values instead.
package enum StoreError: Error, CustomStringConvertible, Equatable {
    /// A call to the database failed; the backend that made it says how (``DatabaseFailure``).
    case database(DatabaseFailure)
    /// The file is a SQLite database of some other application; it is left untouched.
    case foreignDatabase(path: String)
    /// The file is not a readable SQLite database (damaged, or not SQLite at all).
    case damagedDatabase(path: String, reason: String)
    /// The database was written by a newer Quotebook whose schema this one does not know.
    case newerSchema(path: String, version: Int)
    /// A journal row could not be decoded back into an action.
    case undecodableJournalEntry(sequence: Int64, reason: String)
    /// The data directory could not be created or opened.
    case dataDirectory(path: String, reason: String)
    /// ``Store/close()`` has begun, so `operation` was refused without touching the journal.
    /// During shutdown the server has stopped taking requests first, so meeting this means a
    /// caller outlived the store it uses.
    case storeClosed(operation: String)
    /// The journal was closed, so `operation` was refused and nothing was read or written.
    case journalClosed(operation: String)
    /// The account storage (`SQLiteAccountStorage.close()`, `PostgresAccountStorage.close()`)
    /// was closed, so `operation` on sessions, secrets or photos was refused.
    case accountStorageClosed(operation: String)
    /// The journal, shared with other processes, holds entries through `head` that the appending
    /// store has not applied yet, so what it validated may rest on a stale state: nothing was
    /// appended. The store catches up and tries again; it reaches a caller only when that keeps
    /// failing.
    case journalBehind(head: Int64)

    package var description: String {
        switch self {
        case let .database(failure):
            failure.description
        case let .foreignDatabase(path):
            "\(path) is a SQLite database of another application, not Quotebook's; it was left as it was"
        case let .damagedDatabase(path, reason):
            "\(path) is not a readable Quotebook database (\(reason)); it was left as it was"
        case let .newerSchema(path, version):
            "\(path) has schema version \(version), newer than this Quotebook understands"
        case let .undecodableJournalEntry(sequence, reason):
            "journal entry \(sequence) cannot be read: \(reason)"
        case let .dataDirectory(path, reason):
            "cannot use data directory \(path): \(reason)"
        case let .storeClosed(operation):
            "store closed: \(operation) refused"
        case let .journalClosed(operation):
            "journal closed: \(operation) refused"
        case let .accountStorageClosed(operation):
            "account storage closed: \(operation) refused"
        case let .journalBehind(head):
            "the journal holds entries through \(head) that this store has not applied; nothing was appended"
        }
    }
}

extension StoreError {
    /// The reason of a ``dataDirectory(path:reason:)`` whose lock another process holds.
    package static let dataDirectoryInUse = "another Quotebook process is using it"

    /// Whether this is a data directory another process (a running server) has locked.
    package var isDataDirectoryInUse: Bool {
        if case .dataDirectory(_, let reason) = self { return reason == Self.dataDirectoryInUse }
        return false
    }
}

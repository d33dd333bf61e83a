package import Store
import Basics

/// Reads a SQLite database through a connection of its own to the file, on a queue of its own.
/// In WAL mode readers and the writer do not block each other
/// (https://sqlite.org/wal.html#concurrency), so what it reads neither waits for the work queued
/// on the writer's connection nor delays it; each read sees the database as committed when the
/// read began. Used for a journal's history pages (beside the saves) and for photos (beside the
/// session look-ups of the account storage).
///
/// Ownership: the connection, opened at the first read, is touched only by this actor, on its
/// own serial dispatch queue, so SQLite's calls never hold a cooperative-pool thread. It only
/// reads (`PRAGMA query_only`) and never checkpoints on close: the writer's connection is the
/// last to close and does that (its owner closes this first).
package actor SQLiteReader: JournalHistoryReader {
    private let executor: DispatchQueueExecutor
    private let path: String
    /// What a read after ``close()`` throws, named after the operation.
    private let closedError: @Sendable (String) -> StoreError
    private var connection: SQLiteConnection?
    private var isClosed = false

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// A reader of the database file at `path`, on queue `label`; opens nothing yet. After
    /// ``close()`` reads throw `closedError` (its owner's).
    package init(
        path: String, label: String,
        closedError: @escaping @Sendable (String) -> StoreError = { .journalClosed(operation: $0) }
    ) {
        self.path = path
        self.closedError = closedError
        executor = DispatchQueueExecutor(label: label)
    }

    /// Runs `body` with the connection (opened the first time), unless closed.
    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        guard !isClosed else { throw closedError(operation) }
        if let connection { return try body(connection) }
        let opened = try SQLiteConnection(path: path)
        try opened.setCheckpointOnClose(false)
        try opened.execute("PRAGMA query_only = ON")
        connection = opened
        return try body(opened)
    }

    package func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        try read("history") { connection throws(StoreError) in
            try SQLiteJournal.actions(forQuote: quote, offset: offset, limit: limit, on: connection)
        }
    }

    package func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion] {
        try read("versions") { connection throws(StoreError) in try SQLiteJournal.versions(madeBy: person, on: connection) }
    }

    package func close() {
        isClosed = true
        connection?.close()
        connection = nil
    }
}

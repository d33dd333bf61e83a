/// Reads a SQLite journal's history through a connection of its own to the database file. In
/// WAL mode readers and the writer do not block each other (https://sqlite.org/wal.html#concurrency),
/// so a history page neither waits for the commit in flight on the journal's connection nor
/// delays it; each read sees the journal as committed when the read began.
///
/// Ownership: the connection, opened at the first read, is touched only by this actor, on its
/// own serial dispatch queue, so SQLite's calls never hold a cooperative-pool thread. It only
/// reads (`PRAGMA query_only`) and never checkpoints on close: the journal's own connection is
/// the last to close and does that (``Store/close()`` closes this first).
package actor SQLiteHistoryReader: JournalHistoryReader {
    private let executor = DispatchQueueExecutor(label: "quotebook.history")
    private let path: String
    private var connection: SQLiteConnection?
    private var isClosed = false

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// A reader of the journal in the database file at `path`; opens nothing yet.
    package init(path: String) {
        self.path = path
    }

    package func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        try SQLiteJournal.actions(forQuote: quote, offset: offset, limit: limit, on: try open())
    }

    package func close() {
        isClosed = true
        connection?.close()
        connection = nil
    }

    /// The connection, opened the first time, unless ``close()`` has been called.
    private func open() throws(StoreError) -> SQLiteConnection {
        guard !isClosed else { throw StoreError.journalClosed(operation: "history") }
        if let connection { return connection }
        let opened = try SQLiteConnection(path: path)
        try opened.setCheckpointOnClose(false)
        try opened.execute("PRAGMA query_only = ON")
        connection = opened
        return opened
    }
}

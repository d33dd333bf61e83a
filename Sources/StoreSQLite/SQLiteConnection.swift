private import CSQLite
import Foundation
package import Store

/// One open SQLite database handle (https://sqlite.org/c3ref/sqlite3.html).
///
/// Not Sendable: SQLite handles opened without a mutex must be used from one thread at a time,
/// so exactly one owner (an actor on its own serial executor: the store's journal writer, or the
/// account storage) holds it.
package final class SQLiteConnection {
    private var handle: OpaquePointer?
    /// The file it was opened on, or `:memory:`.
    package let path: String

    /// Opens (creating if needed, unless `create` is false) the database at `path`; `:memory:`
    /// opens a private in-memory one. Without `create` a missing file is an error, never a new
    /// empty database (the operator commands, which must not invent a book where none is).
    package init(path: String, create: Bool = true) throws(StoreError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // A failed open still allocates a handle that must be closed (sqlite.org/c3ref/open.html).
            sqlite3_close_v2(db)
            throw StoreError.sqlite(operation: "open \(path)", code: code, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeout)
    }

    /// How long a statement waits for another connection's lock, in milliseconds.
    private static let busyTimeout: Int32 = 5_000

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Copies the WAL into the database file and empties it (`PRAGMA wal_checkpoint(TRUNCATE)`),
    /// waiting at most `milliseconds` for readers and writers, not the connection's 5 s: a
    /// TRUNCATE checkpoint waits for every reader to finish and keeps new writers out meanwhile,
    /// and a long reader (`quotebook backup`) would stall every save. True when it finished;
    /// false when a reader held it up (SQLite then says so in the result, not as an error), and
    /// what it could not copy stays in the WAL until the next full checkpoint or the close.
    package func checkpointTruncating(waitingAtMost milliseconds: Int32) -> Bool {
        guard let handle else { return false }
        sqlite3_busy_timeout(handle, milliseconds)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeout) }
        guard let row = try? prepare("PRAGMA wal_checkpoint(TRUNCATE)").rows([], { $0.int(at: 0) }).first else { return false }
        return row == 0
    }

    /// Whether closing the last connection copies the WAL into the database file. Off while a
    /// file is being checked, so that refusing another application's database never rewrites it.
    package func setCheckpointOnClose(_ enabled: Bool) throws(StoreError) {
        let code = csqlite_set_checkpoint_on_close(try requireHandle(), enabled ? 1 : 0)
        guard code == SQLITE_OK else { throw error(code, operation: "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE") }
    }

    /// Closes the handle; later calls fail. Statements must be finalized first, or SQLite only
    /// defers the close (and the WAL is not checkpointed).
    package func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs one or more statements that take no parameters and return no rows we need.
    package func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(try requireHandle(), sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, operation: sql) }
    }

    /// Compiles `sql` into a statement (https://sqlite.org/c3ref/prepare.html).
    package func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(try requireHandle(), sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, operation: sql) }
        return SQLiteStatement(statement: statement, connection: self, sql: sql)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    package func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Copies this whole database into `destination` with SQLite's online backup API
    /// (https://sqlite.org/backup.html), all pages in one step: one read transaction, so the copy
    /// is the database as committed when the step began. In WAL mode a reader never blocks the
    /// writer (https://sqlite.org/wal.html#concurrency), so other connections and processes go
    /// on committing meanwhile; their commits are simply not in the copy. (A TRUNCATE
    /// checkpoint, after an account's erasure, waits for readers: at most a moment,
    /// ``checkpointTruncating(waitingAtMost:)``, then gives up until later.)
    package func backup(into destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(try destination.requireHandle(), "main", try requireHandle(), "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), operation: "backup init")
        }
        var code = sqlite3_backup_step(backup, -1)
        // Busy or locked only while another connection recovers the WAL or holds an exclusive
        // lock (a checkpoint in TRUNCATE mode): moments, so wait a little and go on.
        var retries = 0
        while code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_OK, retries < 500 {
            retries += 1
            if code != SQLITE_OK { sqlite3_sleep(10) }
            code = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw destination.error(code, operation: "backup step") }
        guard finished == SQLITE_OK else { throw destination.error(finished, operation: "backup finish") }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int {
        handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// The rowid of the last inserted row.
    package var lastInsertedRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    func error(_ code: Int32, operation: String) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "database closed"
        return StoreError.sqlite(operation: operation, code: code, message: message)
    }

    private func requireHandle() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError.sqlite(operation: "use", code: SQLITE_MISUSE, message: "database closed") }
        return handle
    }
}

@available(*, unavailable, message: "A SQLite connection belongs to one owner; see its documentation.")
extension SQLiteConnection: Sendable {}

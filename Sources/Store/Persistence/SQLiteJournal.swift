package import Foundation

/// The journal as a SQLite table, in WAL mode with `synchronous=FULL` so an appended action
/// survives a crash or power cut once `append` returns (https://sqlite.org/wal.html).
///
/// Opening never changes a file that is not Quotebook's: the application id and schema are
/// checked with reads before anything is written.
package final class SQLiteJournal: JournalStorage {
    /// Quotebook's `PRAGMA application_id` ("QBK1"), https://sqlite.org/pragma.html#pragma_application_id.
    package static let applicationID: Int64 = 0x5142_4B31

    private let connection: SQLiteConnection
    /// Held from opening to ``close()`` when the journal lives in a data directory.
    private var lock: DataDirectoryLock?
    /// Finalized by ``close()`` before the connection, so the close is real.
    private var insert: SQLiteStatement?

    /// Opens the journal at `path` (a file, or `:memory:` for tests), creating the schema in a
    /// new database and refusing a foreign or damaged one.
    package init(path: String) throws(StoreError) {
        let connection = try SQLiteConnection(path: path)
        // Nothing is written until the file is known to be Quotebook's (or new): no checkpoint of
        // another application's WAL on close, and the checks below only read.
        try connection.setCheckpointOnClose(false)
        let isNew = try SQLiteJournal.checkOwnership(of: connection)
        if isNew { try connection.execute("PRAGMA application_id = \(SQLiteJournal.applicationID)") }
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        try SchemaMigrator(migrations: SQLiteJournal.migrations).migrate(connection)
        try connection.setCheckpointOnClose(true)
        self.connection = connection
        self.insert = try connection.prepare("INSERT INTO journal (action) VALUES (?)")
    }

    /// Opens `quotebook.sqlite3` inside `directory`, creating the directory if needed, and holds
    /// the directory's lock until ``close()``: a second process on the same directory is refused.
    package convenience init(directory: URL) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.dataDirectory(path: directory.path, reason: error.localizedDescription)
        }
        let lock = try DataDirectoryLock(directory: directory.path)
        try self.init(path: directory.appendingPathComponent("quotebook.sqlite3").path)
        self.lock = lock
    }

    /// The numbered schema changes; each runs once, in one transaction with its version bump.
    static let migrations: [String] = [
        """
        CREATE TABLE journal (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            action TEXT NOT NULL
        );
        """,
        """
        CREATE TABLE snapshot (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            sequence INTEGER NOT NULL,
            state TEXT NOT NULL
        );
        """,
    ]

    package func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry] {
        let select = try connection.prepare("SELECT sequence, action FROM journal WHERE sequence > ? ORDER BY sequence")
        let rows = try select.rows([.integer(sequence)]) { ($0.int(at: 0), $0.text(at: 1)) }
        var entries: [JournalEntry] = []
        entries.reserveCapacity(rows.count)
        let decoder = JSONDecoder()
        for (sequence, json) in rows {
            do {
                let action = try decoder.decode(AppAction.self, from: Data(json.utf8))
                entries.append(JournalEntry(sequence: sequence, action: action))
            } catch {
                throw StoreError.undecodableJournalEntry(sequence: sequence, reason: "\(error)")
            }
        }
        return entries
    }

    package func append(_ action: AppAction) throws(StoreError) -> Int64 {
        let json: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            json = String(decoding: try encoder.encode(action), as: UTF8.self)
        } catch {
            throw StoreError.sqlite(operation: "encode action", code: 0, message: "\(error)")
        }
        return try connection.transaction { () throws(StoreError) -> Int64 in
            guard let insert else { throw StoreError.sqlite(operation: "append", code: 21, message: "journal closed") }
            try insert.run([.text(json)])
            return connection.lastInsertedRowID
        }
    }

    package func loadSnapshot() -> JournalSnapshot? {
        guard let select = try? connection.prepare("SELECT sequence, state FROM snapshot WHERE id = 1"),
            let row = try? select.rows([], { ($0.int(at: 0), $0.text(at: 1)) }).first,
            let state = try? JSONDecoder().decode(AppState.self, from: Data(row.1.utf8))
        else { return nil }
        return JournalSnapshot(sequence: row.0, state: state)
    }

    package func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError) {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(snapshot.state), as: UTF8.self)
        } catch {
            throw StoreError.sqlite(operation: "encode snapshot", code: 0, message: "\(error)")
        }
        let upsert = try connection.prepare("INSERT OR REPLACE INTO snapshot (id, sequence, state) VALUES (1, ?, ?)")
        try connection.transaction { () throws(StoreError) in
            try upsert.run([.integer(snapshot.sequence), .text(json)])
        }
    }

    /// Finalizes the statements and closes the database, which checkpoints the WAL into the
    /// database file and removes it (a clean close: the file alone then holds every change).
    package func close() {
        insert = nil
        connection.close()
        lock?.release()
        lock = nil
    }

    /// Reads the application id, table count and schema version, writing nothing: true for a new
    /// (entirely empty) database, false for one marked as Quotebook's; anything else is another
    /// application's. A file SQLite cannot read is reported as damaged.
    private static func checkOwnership(of connection: SQLiteConnection) throws(StoreError) -> Bool {
        let applicationID: Int64
        let tableCount: Int64
        let userVersion: Int64
        do {
            applicationID = try connection.prepare("PRAGMA application_id").rows { $0.int(at: 0) }.first ?? 0
            tableCount = try connection.prepare("SELECT count(*) FROM sqlite_master").rows { $0.int(at: 0) }.first ?? 0
            userVersion = try connection.prepare("PRAGMA user_version").rows { $0.int(at: 0) }.first ?? 0
        } catch {
            throw StoreError.damagedDatabase(path: connection.path, reason: "\(error)")
        }
        if applicationID == SQLiteJournal.applicationID { return false }
        guard applicationID == 0, tableCount == 0, userVersion == 0 else {
            throw StoreError.foreignDatabase(path: connection.path)
        }
        return true
    }
}

@available(*, unavailable, message: "The journal belongs to the store that opened it.")
extension SQLiteJournal: Sendable {}

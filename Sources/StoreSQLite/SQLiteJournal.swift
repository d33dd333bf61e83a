package import Foundation
package import Store

/// The journal as a SQLite table, in WAL mode with `synchronous=FULL` so an appended action
/// survives a crash or power cut once `append` returns (https://sqlite.org/wal.html). A batch
/// of actions is appended in one transaction, so it costs one sync of the WAL, not one each.
///
/// Opening never changes a file that is not Quotebook's (see ``QuotebookDatabase``).
package final class SQLiteJournal: JournalStorage {
    private let connection: SQLiteConnection
    /// Held from opening to ``close()`` when the journal lives in a data directory.
    private var lock: DataDirectoryLock?
    /// Finalized by ``close()`` before the connection, so the close is real; nil exactly when the
    /// journal is closed.
    private var insert: SQLiteStatement?
    /// Rewrites a person's entries as erased (see ``JournalStorage/append(_:basedOn:)``).
    private var erase: SQLiteStatement?
    /// Indexes a version an entry made under its quote (``JournalRecord/versions``).
    private var insertVersion: SQLiteStatement?
    /// `<database>-snapshot` beside a database file (as SQLite names its `-wal`); nil in memory.
    private let snapshotPath: String?

    /// Opens the journal at `path` (a file, or `:memory:` for tests), creating the schema in a
    /// new database and refusing a foreign or damaged one.
    package init(path: String) throws(StoreError) {
        let connection = try QuotebookDatabase.open(path: path)
        self.connection = connection
        (insert, erase, insertVersion) = try Self.prepareWrites(on: connection)
        snapshotPath = path == ":memory:" || path.isEmpty ? nil : path + "-snapshot"
    }

    /// The journal of the existing database at `path`, only read (``QuotebookDatabase/openForReading(path:)``):
    /// no lock, no migration, and every append fails. For `quotebook check`, beside a running server.
    package init(readingPath path: String) throws(StoreError) {
        let connection = try QuotebookDatabase.openForReading(path: path)
        self.connection = connection
        (insert, erase, insertVersion) = try Self.prepareWrites(on: connection)
        snapshotPath = path + "-snapshot"
    }

    /// The append, the erasure and the versions' index, prepared once on `connection`. A
    /// person's report keeps its place (report ids count reports) with its reason erased; every
    /// other entry about them becomes `?1`.
    private static func prepareWrites(on connection: SQLiteConnection) throws(StoreError) -> (SQLiteStatement, SQLiteStatement, SQLiteStatement) {
        (
            try connection.prepare("INSERT INTO journal (action, quote_id, person_id) VALUES (?, ?, ?)"),
            try connection.prepare(
                """
                UPDATE journal SET action = CASE WHEN json_type(action, '$.reportQuote') IS NOT NULL
                    THEN json_set(action, '$.reportQuote.reason', '') ELSE ?1 END
                WHERE person_id = ?2 AND sequence < ?3
                """),
            try connection.prepare("INSERT INTO journal_version (quote_id, sequence, action) VALUES (?, ?, ?)")
        )
    }

    /// The database file (or `:memory:`), for opening the other tables' connections beside it.
    package var path: String { connection.path }

    /// Opens `quotebook.sqlite3` inside `directory`, creating the directory if needed (mode
    /// `0700`: the owner's alone), and holds the directory's lock until ``close()``: a second
    /// process on the same directory is refused.
    package convenience init(directory: URL) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.dataDirectory(path: directory.path, reason: error.localizedDescription)
        }
        let lock = try DataDirectoryLock(directory: directory.path)
        try self.init(path: Self.path(inDirectory: directory))
        self.lock = lock
    }

    /// Where a data directory keeps its database: `quotebook.sqlite3` inside it.
    package static func path(inDirectory directory: URL) -> String {
        directory.appendingPathComponent("quotebook.sqlite3").path
    }

    package func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry] {
        let select = try openConnection(for: "load entries").prepare(
            "SELECT sequence, action FROM journal WHERE sequence > ? ORDER BY sequence")
        return try JournalEntryCoding.decode(try select.rows([.integer(sequence)]) { ($0.int(at: 0), $0.text(at: 1)) })
    }

    package func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        try Self.actions(forQuote: quote, offset: offset, limit: limit, on: try openConnection(for: "history"))
    }

    /// A page of quote `quote`'s entries on `connection`: a walk of the `journal_quote` index
    /// from the quote's first entry, `offset` steps and then `limit` rows
    /// (https://sqlite.org/lang_select.html#limitoffset).
    static func actions(forQuote quote: QuoteID, offset: Int, limit: Int, on connection: SQLiteConnection) throws(StoreError) -> [AppAction] {
        let select = try connection.prepare(
            """
            SELECT sequence, action FROM journal WHERE quote_id = ?1
            UNION ALL SELECT sequence, action FROM journal_version WHERE quote_id = ?1
            ORDER BY sequence LIMIT ?2 OFFSET ?3
            """)
        let rows = try select.rows([.integer(Int64(quote.rawValue)), .integer(Int64(max(0, limit))), .integer(Int64(max(0, offset)))]) {
            ($0.int(at: 0), $0.text(at: 1))
        }
        return try JournalEntryCoding.decode(rows).map(\.action)
    }

    package func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion] {
        try Self.versions(madeBy: person, on: try openConnection(for: "versions"))
    }

    /// Every version `person` made, on `connection`: one statement over the entries indexed under
    /// a quote, in sequence order, each decoded and counted as it is stepped to (never all held).
    static func versions(madeBy person: UserID, on connection: SQLiteConnection) throws(StoreError) -> [MadeVersion] {
        let select = try connection.prepare(
            """
            SELECT sequence, quote_id, action FROM journal WHERE quote_id IS NOT NULL
            UNION ALL SELECT sequence, quote_id, action FROM journal_version
            ORDER BY sequence
            """)
        try select.bind([])
        var tally = MadeVersionTally(person: person)
        while try select.step() {
            for entry in try JournalEntryCoding.decode([(select.int(at: 0), select.text(at: 2))]) {
                tally.count(entry.action, quote: QuoteID(Int(select.int(at: 1))))
            }
        }
        return tally.versions
    }

    /// A reader on a connection of its own to the database file (see ``SQLiteHistoryReader``);
    /// nil in memory, where a second connection would open another, empty database.
    package func makeHistoryReader() -> (any JournalHistoryReader)? {
        snapshotPath == nil ? nil : SQLiteReader(path: connection.path, label: "quotebook.history")
    }

    /// One `BEGIN IMMEDIATE … COMMIT` for the whole batch: with `synchronous=FULL` in WAL mode,
    /// the commit syncs the WAL once however many rows it holds (https://sqlite.org/wal.html).
    /// `base` is not checked: the data directory's lock keeps every other process out, so the
    /// store that owns this journal appended every entry it holds.
    package func append(_ entries: [JournalRecord], basedOn base: Int64?) throws(StoreError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        // Checked before BEGIN, which on the closed connection would fail as a SQLite misuse.
        guard let insert, let erase, let insertVersion else { throw StoreError.journalClosed(operation: "append") }
        let texts: [String]
        let versionTexts: [[String]]
        let erasures: [(person: UserID, text: String)?]
        do {
            texts = try JournalEntryCoding.encode(entries.lazy.map(\.action))
            versionTexts = try entries.map { entry in try JournalEntryCoding.encode(entry.versions.lazy.map(\.action)) }
            erasures = try entries.map { entry in
                guard case .deleteAccount(let person, _) = entry.action else { return nil }
                return (person, try JournalEntryCoding.encode([.erased(person)])[0])
            }
        } catch {
            throw StoreError.sqlite(operation: "encode action", code: 0, message: "\(error)")
        }
        let rows: [[SQLiteStatement.Value]] = zip(texts, entries).map { json, entry in
            [.text(json), entry.quote.map { .integer(Int64($0.rawValue)) } ?? .null, entry.person.map { .integer(Int64($0.rawValue)) } ?? .null]
        }
        let sequences = try connection.transaction { () throws(StoreError) -> [Int64] in
            var sequences: [Int64] = []
            sequences.reserveCapacity(rows.count)
            for (index, (row, erasure)) in zip(rows, erasures).enumerated() {
                try insert.run(row)
                let sequence = connection.lastInsertedRowID
                sequences.append(sequence)
                for (version, text) in zip(entries[index].versions, versionTexts[index]) {
                    try insertVersion.run([.integer(Int64(version.quote.rawValue)), .integer(sequence), .text(text)])
                }
                if let erasure { try erase.run([.text(erasure.text), .integer(Int64(erasure.person.rawValue)), .integer(sequence)]) }
            }
            return sequences
        }
        // The WAL still holds the pages as they were before the erasure: copied into the
        // database file (whose free space secure_delete zeroed) and emptied now, as far as
        // readers allow; the close, or the next checkpoint, finishes what they held up.
        if erasures.contains(where: { $0 != nil }) { _ = connection.checkpointTruncating(waitingAtMost: 100) }
        return sequences
    }

    /// The newest snapshot: the one in the file beside the database (see ``SnapshotFile``), or
    /// one an earlier build kept in the `snapshot` table (and an in-memory journal keeps there),
    /// whichever is newer; nil when there is none that can be read (a damaged one, another
    /// version, or the JSON of earlier builds), and the whole journal is replayed. A snapshot
    /// past the journal's newest entry (a database restored from an older copy beside a newer
    /// snapshot file) is not this journal's and is ignored.
    package func loadSnapshot() -> JournalSnapshot? {
        guard let newest = try? openConnection(for: "load snapshot").prepare("SELECT coalesce(max(sequence), 0) FROM journal"),
            let head = try? newest.rows([], { (row: SQLiteStatement) in row.int(at: 0) }).first
        else { return nil }
        var candidates: [JournalSnapshot] = []
        if let snapshotPath, let file = SnapshotFile.read(from: snapshotPath), file.sequence <= head,
            let state = try? file.bytes.withUnsafeBytes({ buffer throws(SnapshotFormatError) in
                try SnapshotFormat.decode(buffer, through: file.sequence)
            })
        {
            candidates.append(JournalSnapshot(sequence: file.sequence, state: state))
            // An earlier build's snapshot holds password hashes: replaced at once by one without.
            // Only its header is looked at (a copy of the whole file here cost 28 MB at 100,000 quotes).
            if !SnapshotFormat.isCurrent(Array(file.bytes.prefix(SnapshotFormat.headerLength))) {
                try? SnapshotFile.write(SnapshotFormat.encode(state), through: file.sequence, to: snapshotPath)
            }
        }
        if let select = try? connection.prepare("SELECT sequence, state FROM snapshot WHERE id = 1"),
            (try? select.bind([])) != nil, (try? select.step()) == true,
            case let sequence = select.int(at: 0), sequence <= head, !candidates.contains(where: { $0.sequence >= sequence }),
            let state = try? select.withBlob(at: 1, { buffer throws(SnapshotFormatError) in try SnapshotFormat.decode(buffer, through: sequence) })
        {
            candidates.append(JournalSnapshot(sequence: sequence, state: state))
        }
        return candidates.max { $0.sequence < $1.sequence }
    }

    /// Replaces the snapshot with `snapshot` in ``SnapshotFormat``: in the file beside the
    /// database, or for an in-memory journal in the `snapshot` table, as a BLOB (the column's TEXT
    /// affinity keeps BLOBs as they are: https://sqlite.org/datatype3.html#type_affinity).
    package func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError) {
        let connection = try openConnection(for: "save snapshot")
        let bytes = SnapshotFormat.encode(snapshot.state)
        if let snapshotPath {
            try SnapshotFile.write(bytes, through: snapshot.sequence, to: snapshotPath)
            return
        }
        let upsert = try connection.prepare("INSERT OR REPLACE INTO snapshot (id, sequence, state) VALUES (1, ?, ?)")
        try connection.transaction { () throws(StoreError) in
            try upsert.run([.integer(snapshot.sequence), .blob(bytes)])
        }
    }

    /// The snapshot file, written on a queue of its own while appends go on; nil in memory.
    package func makeSnapshotSaver() -> (any SnapshotSaver)? {
        snapshotPath.map { SnapshotFile(path: $0) }
    }

    /// `PRAGMA synchronous` of the journal's own connection (the setting is per connection):
    /// 2 is FULL, which makes a committed append survive a power cut in WAL mode.
    package var synchronousSetting: Int64 {
        get throws(StoreError) {
            let select = try openConnection(for: "read synchronous setting").prepare("PRAGMA synchronous")
            return try select.rows { $0.int(at: 0) }.first ?? -1
        }
    }

    /// Finalizes the statements and closes the database, which checkpoints the WAL into the
    /// database file and removes it (a clean close: the file alone then holds every change).
    /// Later reads and writes throw ``StoreError/journalClosed(operation:)``.
    package func close() {
        insert = nil
        erase = nil
        insertVersion = nil
        connection.close()
        lock?.release()
        lock = nil
    }

    /// The connection for `operation`, unless ``close()`` has been called.
    private func openConnection(for operation: String) throws(StoreError) -> SQLiteConnection {
        guard insert != nil else { throw StoreError.journalClosed(operation: operation) }
        return connection
    }
}

@available(*, unavailable, message: "The journal belongs to the store that opened it.")
extension SQLiteJournal: Sendable {}

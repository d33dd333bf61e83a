import Foundation
package import Store
import Synchronization
package import Logging

/// The journal in PostgreSQL: one ordered log that every Quotebook instance on the database
/// appends to and follows (https://www.postgresql.org/docs/15/index.html).
///
/// Tables, in `schema` (see ``PostgresJournal/migrations``):
/// - `journal`: one row per action, `sequence` counting from 1 without gaps, the action as the
///   very JSON text ``SQLiteJournal`` stores, `quote_id` indexed for a quote's history;
/// - `journal_head`: one row, the newest sequence. An append updates it first, inside its
///   transaction, so appends queue on that row's lock and commit in sequence order (a PostgreSQL
///   sequence can commit out of order, and a follower reading "after my newest" would skip the
///   late one). The same statement refuses the append unless the head is the entry it was
///   validated on, and NOTIFYs ``channel`` with the new head, delivered at commit
///   (https://www.postgresql.org/docs/15/sql-notify.html);
/// - `journal_snapshot`: one row, the newest snapshot (an older one never replaces it);
/// - `quotebook_migration`: the migrations applied, row `journal` (``PostgresSchemaMigrator``).
///
/// Durability is the server's: `COMMIT` returns once the WAL is flushed (`synchronous_commit`
/// on, the default). A connection lost during `COMMIT` leaves it unknown whether the batch was
/// stored; the store fails it, and if it was stored, reads it back as an entry like any other.
///
/// Ownership: like ``SQLiteJournal``, owned by one store and used from one thread at a time (its
/// ``JournalWriter``'s queue); every call blocks for a round trip. Following the log runs on the
/// process's ``PostgresListener`` (its own thread and connection), shared with the account storage.
package final class PostgresJournal: JournalStorage {
    /// At most this many rows per `INSERT`, well inside the protocol's 65,535 parameters.
    private static let rowsPerInsert = 1000

    private let connection: PostgresConnection
    private let sql: Statements
    /// Where appends are announced: `quotebook_journal`, or `quotebook_journal_<schema>` for a
    /// schema other than `public`.
    package let channel: String
    private let pollInterval: Duration
    private let logger: Logger
    /// The process's listener, or nil: one of the journal's own is started when it follows.
    private let sharedListener: PostgresListener?
    /// The listener this journal started for itself (no shared one), stopped at close.
    private var ownListener: PostgresListener?
    /// This journal's place among the listener's followers while it follows the log.
    private var follower: PostgresListener.Follower?
    /// The store's wake-up stream while it follows the log.
    private var wake: AsyncStream<Int64?>.Continuation?
    private var isClosed = false
    /// True between ``lockHead()`` and the append or ``unlockHead()`` that ends its transaction.
    private var holdsHead = false

    /// Connects to `url` and creates or migrates the journal's tables in `schema` (created when
    /// missing; tests give each journal its own). Instances starting together take turns.
    ///
    /// - Parameters:
    ///   - schema: 1 to 40 bytes, so the channel named after it fits PostgreSQL's 63-byte limit.
    ///   - pollInterval: how often a follower reads the log when no notification came.
    ///   - listener: the process's listener, to follow the log on; nil: one of its own.
    /// - Throws: ``StoreError/newerSchema(path:version:)`` for tables a newer Quotebook migrated;
    ///   a PostgreSQL error when the server cannot be reached or refuses.
    package init(
        url: PostgresURL, schema: String = "public", pollInterval: Duration = .seconds(1), listener: PostgresListener? = nil,
        logger: Logger
    ) throws(StoreError) {
        try PostgresSchemaMigrator.checkSchemaName(schema, opening: "journal")
        let connection = try PostgresConnection(url: url)
        try Self.migrate(connection, schema: schema)
        self.connection = connection
        self.sql = Statements(schema: PostgresSchemaMigrator.quoted(schema))
        self.channel = PostgresSchemaMigrator.channel("journal", forSchema: schema)
        self.pollInterval = pollInterval
        self.sharedListener = listener
        self.logger = logger
    }

    deinit {
        stopFollowing()
    }

    package func loadEntries(after sequence: Int64) throws(StoreError) -> [JournalEntry] {
        try Self.entries(try openConnection(for: "load entries").query(sql.entriesAfter, [String(sequence)]))
    }

    package func actions(forQuote quote: QuoteID, offset: Int, limit: Int) throws(StoreError) -> [AppAction] {
        let connection = try openConnection(for: "history")
        return try Self.entries(connection.query(sql.entriesOfQuote, Statements.pageParameters(quote, offset: offset, limit: limit)))
            .map(\.action)
    }

    package func versions(madeBy person: UserID) throws(StoreError) -> [MadeVersion] {
        try Self.versionsMade(by: person, in: try openConnection(for: "versions").query(sql.quoteEntries))
    }

    /// Reads history through a client of its own (connected at the first read), so a history
    /// page never queues behind the appends on this journal's connection.
    package func makeHistoryReader() -> (any JournalHistoryReader)? {
        PostgresHistoryReader(
            client: PostgresClient(url: connection.url, label: "quotebook.history"), statement: sql.entriesOfQuote,
            versionsStatement: sql.quoteEntries)
    }

    /// One transaction: the head moves first (taking its lock, checking `base`, notifying), then
    /// the rows go in, numbered after the old head.
    package func append(_ entries: [JournalRecord], basedOn base: Int64?) throws(StoreError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        let connection = try openConnection(for: "append")
        let texts: [String]
        let erasures: [(person: UserID, text: String)?]
        let versionTexts: [String]
        do {
            texts = try JournalEntryCoding.encode(entries.lazy.map(\.action))
            versionTexts = try JournalEntryCoding.encode(entries.lazy.flatMap(\.versions).map(\.action))
            erasures = try entries.map { entry in
                guard case .deleteAccount(let person, _) = entry.action else { return nil }
                return (person, try JournalEntryCoding.encode([.erased(person)])[0])
            }
        } catch {
            throw StoreError.postgres(operation: "encode action", sqlState: nil, message: "\(error)")
        }
        let count = Int64(entries.count)
        let sql = self.sql
        let channel = self.channel
        let body = { () throws(StoreError) -> [Int64] in
            let advanced = try connection.query(sql.advanceHead, [String(count), base.map { String($0) }, channel])
            guard let head = try advanced.rows.first?.int64(at: 0) else {
                throw StoreError.journalBehind(head: try connection.query(sql.readHead).rows.first?.int64(at: 0) ?? 0)
            }
            let sequences = Array((head - count + 1)...head)
            for start in stride(from: 0, to: entries.count, by: Self.rowsPerInsert) {
                let rows = start..<min(start + Self.rowsPerInsert, entries.count)
                var parameters: [String?] = []
                parameters.reserveCapacity(4 * rows.count)
                for index in rows {
                    parameters += [
                        String(sequences[index]), texts[index], entries[index].quote.map { String($0.rawValue) },
                        entries[index].person.map { String($0.rawValue) },
                    ]
                }
                try connection.query(sql.insert(rows: rows.count), parameters)
            }
            // Each version an entry made of another quote, in the order of `versionTexts`.
            let versions = zip(sequences, entries).flatMap { sequence, entry in entry.versions.map { (sequence, $0) } }
            if !versions.isEmpty {
                for start in stride(from: 0, to: versions.count, by: Self.rowsPerInsert) {
                    let rows = start..<min(start + Self.rowsPerInsert, versions.count)
                    var parameters: [String?] = []
                    parameters.reserveCapacity(3 * rows.count)
                    for index in rows {
                        parameters += [String(versions[index].1.quote.rawValue), String(versions[index].0), versionTexts[index]]
                    }
                    try connection.query(sql.insertVersions(rows: rows.count), parameters)
                }
            }
            for (sequence, erasure) in zip(sequences, erasures) {
                guard let erasure else { continue }
                try connection.query(sql.erase, [erasure.text, String(erasure.person.rawValue), String(sequence)])
            }
            return sequences
        }
        guard holdsHead else { return try connection.transaction(body) }
        holdsHead = false
        do {
            let sequences = try body()
            try connection.commitTransaction()
            return sequences
        } catch {
            connection.rollbackTransaction()
            throw error
        }
    }

    /// Opens a transaction holding `journal_head`'s row lock (`SELECT … FOR UPDATE`), which
    /// every append takes first: until the next ``append(_:basedOn:)`` (which commits it) or
    /// ``unlockHead()``, no other process can append, so entries read meanwhile are the whole log.
    package func lockHead() throws(StoreError) {
        let connection = try openConnection(for: "lock the journal's head")
        guard !holdsHead else { return }
        try connection.beginTransaction()
        do {
            try connection.query(sql.lockHead)
        } catch {
            connection.rollbackTransaction()
            throw error
        }
        holdsHead = true
    }

    /// Ends the transaction ``lockHead()`` opened, appending nothing.
    package func unlockHead() {
        guard holdsHead else { return }
        holdsHead = false
        connection.rollbackTransaction()
    }

    /// The snapshot in ``SnapshotFormat``; nil when there is none or it cannot be read, and the
    /// whole journal is replayed.
    package func loadSnapshot() -> JournalSnapshot? {
        guard let row = try? openConnection(for: "load snapshot").query(sql.readSnapshot).rows.first,
            let sequence = try? row.int64(at: 0), let bytes = try? row.bytes(at: 1),
            let state = try? bytes.withUnsafeBytes({ buffer throws(SnapshotFormatError) in
                try SnapshotFormat.decode(buffer, through: sequence)
            })
        else { return nil }
        return JournalSnapshot(sequence: sequence, state: state)
    }

    /// Stores `snapshot` unless the one there is newer: any instance may save one.
    package func saveSnapshot(_ snapshot: JournalSnapshot) throws(StoreError) {
        let bytes = PostgresBytea.encode(SnapshotFormat.encode(snapshot.state))
        try openConnection(for: "save snapshot").query(sql.saveSnapshot, [String(snapshot.sequence), bytes])
    }

    /// Saves snapshots the same way on a connection of its own, so appends go on meanwhile.
    package func makeSnapshotSaver() -> (any SnapshotSaver)? {
        PostgresSnapshotSaver(client: PostgresClient(url: connection.url, label: "quotebook.snapshot"), statement: sql.saveSnapshot)
    }

    /// Follows ``channel`` on the listener, until ``close()``: `wake` gets the head a
    /// notification announces, and nil (read anyway) after (re)connecting, after losing the
    /// connection, and every `pollInterval` without a notification. So a lost notification (or
    /// one sent while the connection was down) costs at most `pollInterval` of latency, never an
    /// entry. `wake` finishes at ``close()``.
    package func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool {
        guard !isClosed else { return false }
        stopFollowing()
        let logger = self.logger
        let isFailing = Atomic(false)
        let listener = sharedListener ?? PostgresListener(url: connection.url)
        if sharedListener == nil { ownListener = listener }
        follower = listener.startFollowing(channel, quietInterval: pollInterval) { event in
            switch event {
            case .notification(let notification):
                wake.yield(Int64(notification.payload))
            case .listening:
                if isFailing.exchange(false, ordering: .relaxed) { logger.notice("listening to the journal's notifications again") }
                wake.yield(nil)
            case .interrupted(let reason):
                if !isFailing.exchange(true, ordering: .relaxed) {
                    logger.warning("not receiving the journal's notifications, retrying: \(reason)")
                }
                wake.yield(nil)
            case .quiet:
                wake.yield(nil)
            }
        }
        self.wake = wake
        return true
    }

    /// Stops following and closes the connection. Later reads and writes throw
    /// ``StoreError/journalClosed(operation:)``.
    package func close() {
        unlockHead()
        stopFollowing()
        isClosed = true
        connection.close()
    }

    /// Leaves the listener's followers (stopping the journal's own listener) and finishes `wake`.
    private func stopFollowing() {
        if let follower { (sharedListener ?? ownListener)?.unfollow(follower) }
        follower = nil
        ownListener?.stop()
        ownListener = nil
        wake?.finish()
        wake = nil
    }

    /// The connection for `operation`, unless ``close()`` has been called.
    private func openConnection(for operation: String) throws(StoreError) -> PostgresConnection {
        guard !isClosed else { throw StoreError.journalClosed(operation: operation) }
        return connection
    }

    /// Rows of `sequence, action` as entries.
    static func entries(_ result: PostgresResult) throws(StoreError) -> [JournalEntry] {
        var rows: [(sequence: Int64, json: String)] = []
        rows.reserveCapacity(result.rows.count)
        for row in result.rows { rows.append((try row.int64(at: 0) ?? 0, row.string(at: 1) ?? "")) }
        return try JournalEntryCoding.decode(rows)
    }
}

@available(*, unavailable, message: "The journal belongs to the store that opened it.")
extension PostgresJournal: Sendable {}

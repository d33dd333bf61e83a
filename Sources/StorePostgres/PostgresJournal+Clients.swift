import Store

/// ``PostgresJournal``'s snapshots saved through a client of their own (see ``SnapshotSaver``).
struct PostgresSnapshotSaver: SnapshotSaver {
    let client: PostgresClient
    /// The journal's snapshot upsert, which keeps a newer snapshot another instance stored.
    let statement: String

    func save(_ bytes: [UInt8], through sequence: Int64) async throws(StoreError) {
        try await client.query(statement, [String(sequence), PostgresBytea.encode(bytes)])
    }

    func close() async {
        await client.close()
    }
}

/// ``PostgresJournal``'s history read through a client of its own (see ``JournalHistoryReader``):
/// its own connection and serial queue, so reads and appends never wait for each other.
struct PostgresHistoryReader: JournalHistoryReader {
    let client: PostgresClient
    /// The journal's page of a quote's entries (``PostgresJournal/Statements/entriesOfQuote``).
    let statement: String
    /// Every entry indexed under a quote (``PostgresJournal/Statements/quoteEntries``).
    let versionsStatement: String

    func actions(forQuote quote: QuoteID, offset: Int, limit: Int) async throws(StoreError) -> [AppAction] {
        let result: PostgresResult
        do {
            result = try await client.query(statement, PostgresJournal.Statements.pageParameters(quote, offset: offset, limit: limit))
        } catch {
            if error.isClosedConnection { throw StoreError.journalClosed(operation: "history") }
            throw error
        }
        return try PostgresJournal.entries(result).map(\.action)
    }

    func close() async {
        await client.close()
    }
}

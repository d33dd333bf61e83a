import Store

extension PostgresJournal {
    /// The versions `person` made among `result`'s rows of ``Statements/quoteEntries`` (sequence,
    /// action, quote id), counted in order through a ``MadeVersionTally``.
    static func versionsMade(by person: UserID, in result: PostgresResult) throws(StoreError) -> [MadeVersion] {
        var tally = MadeVersionTally(person: person)
        for row in result.rows {
            let sequence = try row.int64(at: 0) ?? 0
            guard let quote = try row.int64(at: 2) else { continue }
            for entry in try JournalEntryCoding.decode([(sequence, row.string(at: 1) ?? "")]) {
                tally.count(entry.action, quote: QuoteID(Int(quote)))
            }
        }
        return tally.versions
    }
}

extension PostgresHistoryReader {
    /// ``JournalStorage/versions(madeBy:)`` through the reader's own client.
    func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion] {
        let result: PostgresResult
        do {
            result = try await client.query(versionsStatement)
        } catch {
            if error.isClosedConnection { throw StoreError.journalClosed(operation: "versions") }
            throw error
        }
        return try PostgresJournal.versionsMade(by: person, in: result)
    }
}

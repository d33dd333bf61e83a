import Foundation

/// How an action is stored in a journal row: JSON with sorted keys, the same text in SQLite and
/// PostgreSQL (a stored format: see ``AppAction``), and read back into ``JournalEntry`` values.
package enum JournalEntryCoding {
    /// Each action as its stored JSON text.
    ///
    /// - Throws: the `EncodingError` of an action that cannot be encoded; each journal reports
    ///   it as its own ``StoreError``.
    package static func encode(_ actions: some Sequence<AppAction>) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try actions.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }

    /// The entries stored as `rows` of sequence and JSON text, in the rows' order.
    ///
    /// - Throws: ``StoreError/undecodableJournalEntry(sequence:reason:)`` for the first row that
    ///   is not an action.
    package static func decode(_ rows: [(sequence: Int64, json: String)]) throws(StoreError) -> [JournalEntry] {
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
}

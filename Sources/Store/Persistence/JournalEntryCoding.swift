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
    /// Many rows (a start-up's tail of up to a snapshot interval, a follower catching up) are
    /// decoded in parts on every core: decoding the JSON was most of replaying the tail.
    ///
    /// - Throws: ``StoreError/undecodableJournalEntry(sequence:reason:)`` for the first row that
    ///   is not an action.
    package static func decode(_ rows: [(sequence: Int64, json: String)]) throws(StoreError) -> [JournalEntry] {
        guard rows.count >= 2 * rowsPerPart else { return try decode(rows[...]) }
        let parts = EveryCore.parts(of: rows.count, atLeast: rowsPerPart)
        let decoded = EveryCore.map(parts.count) { part in
            Result { () throws(StoreError) in try decode(rows[parts[part]]) }
        }
        var entries: [JournalEntry] = []
        entries.reserveCapacity(rows.count)
        // In order, so the error thrown is the first bad row's.
        for part in decoded { entries += try part.get() }
        return entries
    }

    /// The fewest rows a part decoded on its own core has.
    static let rowsPerPart = 128

    private static func decode(_ rows: ArraySlice<(sequence: Int64, json: String)>) throws(StoreError) -> [JournalEntry] {
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

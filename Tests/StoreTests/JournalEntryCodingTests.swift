import Foundation
import Store
import Testing

/// Journal rows decode to the actions they were encoded from, in order, whether few (one
/// thread) or many (in parts on every core), and a bad row is reported by its own sequence.
@Suite struct JournalEntryCodingTests {
    func rows(_ count: Int) throws -> [(sequence: Int64, json: String)] {
        let at = Date(timeIntervalSince1970: 1_000)
        let actions = (1...count).map { index in
            AppAction.addQuote(QuoteDraft(text: "Quote \(index) é", author: "Author \(index % 7)"), by: UserID(index % 5 + 1), at: at)
        }
        return try zip(1..., JournalEntryCoding.encode(actions)).map { (Int64($0), $1) }
    }

    @Test(arguments: [1, 255, 256, 257, 1_000, 3_001])
    func decodesEveryRowInOrder(count: Int) throws {
        let rows = try rows(count)
        let entries = try JournalEntryCoding.decode(rows)
        #expect(entries.map(\.sequence) == rows.map(\.sequence))
        #expect(try JournalEntryCoding.encode(entries.map(\.action)) == rows.map(\.json))
    }

    @Test func aBadRowIsReportedByItsSequenceAndTheFirstOneWins() throws {
        var rows = try rows(1_000)
        rows[699].json = "{\"not\": \"an action\"}"
        rows[899].json = "not json"
        #expect {
            try JournalEntryCoding.decode(rows)
        } throws: { error in
            guard case StoreError.undecodableJournalEntry(let sequence, _) = error else { return false }
            return sequence == 700
        }
    }
}

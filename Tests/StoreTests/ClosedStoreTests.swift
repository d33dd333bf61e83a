import Foundation
import Logging
import Store
import StoreSQLite
import Testing

/// After `close()`, the store, its journal and the account storage refuse work with an error that
/// names what was closed, never with a SQLite result code that would blame the database.
@Suite struct ClosedStoreTests {
    let date = Date(timeIntervalSince1970: 1_000)
    var add: AppAction { .addQuote(QuoteDraft(text: "Late", author: "Someone"), by: nil, at: date) }

    @Test func aClosedStoreRefusesDispatchesAndHistoryAsStoreClosed() async throws {
        let store = try Store(journal: try SQLiteJournal(path: ":memory:"), seed: [add], logger: .discarding())
        await store.close()
        await #expect(throws: StoreError.storeClosed(operation: "dispatch")) { try await store.dispatch(add) }
        await #expect(throws: StoreError.storeClosed(operation: "history")) { try await store.history(of: QuoteID(1)) }
        #expect(store.state.quotes.count == 1, "the refused action changed nothing")
    }

    @Test(arguments: JournalBackend.available)
    func aClosedJournalRefusesReadsAndWritesAsJournalClosed(on backend: JournalBackend) async throws {
        let location = try JournalLocation(backend)
        let journal = try location.open()
        journal.close()
        await location.remove()
        #expect(throws: StoreError.journalClosed(operation: "append")) { try journal.append(add, quote: QuoteID(1)) }
        #expect(throws: StoreError.journalClosed(operation: "load entries")) { try journal.loadAll() }
        #expect(throws: StoreError.journalClosed(operation: "history")) { try journal.actions(forQuote: QuoteID(1)) }
        #expect(throws: StoreError.journalClosed(operation: "save snapshot")) {
            try journal.saveSnapshot(JournalSnapshot(sequence: 1, state: AppState()))
        }
        #expect(journal.loadSnapshot() == nil)
    }

    @Test(arguments: [
        (StoreError.storeClosed(operation: "dispatch"), "store closed: dispatch refused"),
        (.journalClosed(operation: "append"), "journal closed: append refused"),
        (.accountStorageClosed(operation: "read photo"), "account storage closed: read photo refused"),
    ])
    func aClosedConditionSaysWhatWasClosedNotASQLiteError(error: StoreError, description: String) {
        #expect(error.description == description)
        #expect(!error.description.contains("SQLite"))
    }
}

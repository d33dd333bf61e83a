import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// `versions(madeBy:)`: every version one person made, read from the journal's quote index on
/// each backend, numbered as the quote's history numbers them, deleted quotes' included.
@Suite struct MadeVersionsTests {
    let date = Date(timeIntervalSince1970: 1_000)
    let ada = UserID(1)
    let bob = UserID(2)

    func draft(_ text: String) -> QuoteDraft { QuoteDraft(text: text, author: "A") }

    /// Ada and Bob sign up; the seed quote 1 is no one's. Bob adds 2, Ada edits it (v2), Bob
    /// edits it (v3), Ada restores v1 (v4); Ada adds 3 and edits it (v2); Ada adds 4, Bob edits it
    /// (v2), Ada deletes it; Ada edits the seed quote (v2).
    func makeHistory(in store: Store) async throws {
        for name in ["ada", "bob"] {
            let result = try await store.dispatch(
                .signUp(try #require(Username(name)), displayName: name, at: date))
            #expect(result.isSuccess)
        }
        let actions: [AppAction] = [
            .addQuote(draft("bob's"), by: bob, at: date),
            .editQuote(QuoteID(2), draft("ada's edit"), baseVersion: 1, by: ada, at: date),
            .editQuote(QuoteID(2), draft("bob's edit"), baseVersion: 2, by: bob, at: date),
            .restoreQuote(QuoteID(2), draft("bob's"), fromVersion: 1, by: ada, at: date.addingTimeInterval(60)),
            .addQuote(draft("ada's"), by: ada, at: date),
            .editQuote(QuoteID(3), draft("ada's again"), baseVersion: 1, by: ada, at: date),
            .addQuote(draft("short-lived"), by: ada, at: date),
            .editQuote(QuoteID(4), draft("bob was here"), baseVersion: 1, by: bob, at: date),
            .deleteQuote(QuoteID(4), by: ada, at: date),
            .editQuote(QuoteID(1), draft("seed, edited"), baseVersion: 1, by: ada, at: date),
            .setFavourite(ada, QuoteID(2), at: date),
        ]
        for action in actions { #expect(try await store.dispatch(action).isSuccess, "\(action)") }
    }

    @Test(arguments: JournalBackend.available)
    func everyVersionAPersonMadeInJournalOrderWithItsNumberAndKind(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let seed: [AppAction] = [.addQuote(draft("seed"), by: nil, at: date)]
            let store = try Store(journal: try location.open(), seed: seed, logger: .discarding())
            try await makeHistory(in: store)

            let adas = try await store.versions(madeBy: ada)
            #expect(adas.map(\.quote.rawValue) == [2, 2, 3, 3, 4, 1])
            #expect(adas.map(\.version.version) == [2, 4, 1, 2, 1, 2])
            #expect(adas.map(\.kind) == [.edited, .restored, .added, .edited, .added, .edited])
            #expect(adas.map(\.version.text) == ["ada's edit", "bob's", "ada's", "ada's again", "short-lived", "seed, edited"])
            #expect(adas[1].version.restoredFrom == 1 && adas[1].version.editedAt == date.addingTimeInterval(60))
            #expect(adas.allSatisfy { $0.version.editedBy == ada })

            let bobs = try await store.versions(madeBy: bob)
            #expect(bobs.map { [$0.quote.rawValue, $0.version.version] } == [[2, 1], [2, 3], [4, 2]])
            #expect(bobs.map(\.kind) == [.added, .edited, .edited])
            #expect(try await store.versions(madeBy: UserID(3)).isEmpty)
            await store.close()

            // From a reopened journal, on its history reader, the same.
            let reopened = try Store(journal: try location.open(), logger: .discarding())
            #expect(try await reopened.versions(madeBy: ada) == adas)
            await reopened.close()
        }
    }

    @Test func anInMemoryJournalIsReadBetweenAppends() async throws {
        let seed: [AppAction] = [.addQuote(draft("seed"), by: nil, at: date)]
        let store = try Store(journal: try SQLiteJournal(path: ":memory:"), seed: seed, logger: .discarding())
        try await makeHistory(in: store)
        #expect(try await store.versions(madeBy: ada).map(\.version.version) == [2, 4, 1, 2, 1, 2])
        await store.close()
        await #expect(throws: StoreError.self) { try await store.versions(madeBy: ada) }
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

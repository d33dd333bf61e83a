import App
import Foundation
import Logging
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// `quotebook check --database URL`'s path (``Backend/openForCheck(logger:)`` and
/// ``CheckCommand``) on a PostgreSQL book: consistent as written, then a journal row edited by
/// hand, and a deletion's erasure, which must still check as consistent.
@Suite(.enabled(if: TestBackend.databaseURLText != nil, Comment(rawValue: TestBackend.postgresSkipReason)), .timeLimit(.minutes(1)))
struct PostgresCheckTests {
    @Test func aHealthyBookIsConsistentAnErasedOneTooAndAnEditedRowIsNot() async throws {
        let url = try PostgresURL(parsing: try #require(TestBackend.databaseURLText))
        let schema = "qb_check_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let backend = Backend.postgres(url, schema: schema)
        let client = PostgresClient(url: url)
        let date = Date(timeIntervalSince1970: 1_700_000_000)

        let opened = try await backend.open(logger: .discarding())
        let store = try Store(journal: opened.journal, snapshotInterval: 3, logger: .discarding())
        _ = try await store.dispatch(.signUp(Username("leaver")!, displayName: "Leaving Soon", at: date))
        _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Second words", author: "Grace"), by: UserID(1), at: date))
        _ = try await store.dispatch(.changeDisplayName(UserID(1), to: "Still Leaving", at: date))
        _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "Second words, edited", author: "Grace"), baseVersion: 1, by: UserID(1), at: date))
        func check() async throws -> CheckCommand.Outcome {
            let book = try await backend.openForCheck(logger: .discarding())
            defer { book.journal.close() }
            return CheckCommand.run(journal: book.journal, sessionUserIDs: book.sessionUserIDs, photoHashes: book.photoHashes)
        }
        let healthy = try await check()
        #expect(healthy.exitCode == 0, "\(healthy.differences)")

        _ = try await store.dispatch(.deleteAccount(UserID(1), at: date))
        await store.close()
        await opened.accounts.close()
        let erased = try await check()
        #expect(erased.exitCode == 0, "\(erased.differences)")
        let text = try await client.query("SELECT string_agg(action, ' ') FROM \"\(schema)\".journal").rows.first?.string(at: 0) ?? ""
        #expect(!text.contains("leaver") && !text.contains("Leaving") && text.contains("Second words, edited"))

        _ = try await client.query("UPDATE \"\(schema)\".journal SET action = replace(action, 'Second words, edited', 'Forged words') WHERE quote_id = 1 AND action LIKE '%editQuote%'")
        let forged = try await check()
        #expect(forged.exitCode == 1)
        #expect(forged.differences.contains { $0.contains("quote 1") }, "\(forged.differences)")
        _ = try await client.query("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        await client.close()
    }
}

import App
import Foundation
import Logging
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// Two instances on one PostgreSQL journal (two stores in this process): a quote page open on
/// one is sent a save made on the other, as its event stream would be.
@Suite(
    .enabled(
        if: TestBackend.databaseURLText != nil, Comment(rawValue: TestBackend.postgresSkipReason)),
    .timeLimit(.minutes(3)))
struct PostgresQuoteFeedTests {
    @Test func aPageOnOneInstanceIsSentASaveMadeOnAnother() async throws {
        let url = try PostgresURL(parsing: try #require(TestBackend.databaseURLText))
        let schema = "qb_feed_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let date = QuoteFeedTests.date
        let seed = SeedContent.actions(at: date) + [
            .signUp(try #require(Username("ada")), displayName: "Ada", at: date)
        ]
        // Polling once a minute: only the NOTIFY can bring the save within the test's bounds.
        func makeInstance() throws -> Store {
            let journal = try PostgresJournal(url: url, schema: schema, pollInterval: .seconds(60), logger: .discarding())
            return try Store(journal: journal, seed: seed, logger: .discarding())
        }
        let writer = try makeInstance()
        let reader = try makeInstance()
        let feed = QuoteFeed(store: reader, heartbeatInterval: .seconds(3600))
        reader.observe { feed.publish($0) }
        var messages = feed.listen(to: QuoteID(1), lastSeenVersion: 1).makeAsyncIterator()

        try await QuoteFeedTests.edit(writer, to: "Saved on the other instance")
        guard case let .changed(quote, changedBy) = await messages.next() else {
            Issue.record("no change")
            return
        }
        #expect(quote.version == 2)
        #expect(quote.text == "Saved on the other instance")
        #expect(changedBy?.displayName == "Ada")
        await writer.close()
        await reader.close()
        let client = PostgresClient(url: url)
        try await client.query("DROP SCHEMA \"\(schema)\" CASCADE")
        await client.close()
    }
}

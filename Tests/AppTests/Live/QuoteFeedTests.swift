import App
import Foundation
import Logging
import Store
import StoreSQLite
import Testing

/// The hub behind the quote pages' event streams, on an in-memory store: what a listener is
/// sent first, once per version, deletion, unknown quotes, leaving, and the heartbeat.
@Suite(.timeLimit(.minutes(1))) struct QuoteFeedTests {
    static let date = Date(timeIntervalSince1970: 1_000)
    static let ada = UserID(1)

    /// A store with the seed quote and Ada, and a feed observing it.
    static func make(heartbeat: Duration = .seconds(3600)) throws -> (QuoteFeed, Store) {
        let store = try Store(
            journal: try SQLiteJournal(path: ":memory:"),
            seed: SeedContent.actions(at: date) + [
                .signUp(Username("ada")!, displayName: "Ada", at: date)
            ],
            logger: .discarding())
        let feed = QuoteFeed(store: store, heartbeatInterval: heartbeat)
        store.observe { feed.publish($0) }
        return (feed, store)
    }

    static func edit(_ store: Store, _ id: QuoteID = QuoteID(1), to text: String) async throws {
        let version = try #require(store.state.quotes[id]?.version)
        let outcome = try await store.dispatch(
            .editQuote(id, QuoteDraft(text: text, author: "A"), baseVersion: version, by: ada, at: date))
        #expect(outcome == .success(.quoteEdited(id, version: version + 1)))
    }

    /// Waits (polling every 5 ms, at most 10 s) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return condition()
    }

    @Test func startsWithTheQuoteAsItIsNow() async throws {
        let (feed, store) = try Self.make()
        var messages = feed.listen(to: QuoteID(1), lastSeenVersion: nil).makeAsyncIterator()
        let quote = try #require(store.state.quotes[QuoteID(1)])
        #expect(await messages.next() == .changed(quote, changedBy: nil))
        #expect(feed.listenerCount == 1)
    }

    @Test func sendsEveryNewVersionOnceWithWhoMadeIt() async throws {
        let (feed, store) = try Self.make()
        // The listener has version 1 already: nothing is sent for it.
        var messages = feed.listen(to: QuoteID(1), lastSeenVersion: 1).makeAsyncIterator()
        try await Self.edit(store, to: "Second")
        guard case let .changed(quote, changedBy) = await messages.next() else {
            Issue.record("no change")
            return
        }
        #expect(quote.version == 2)
        #expect(quote.text == "Second")
        #expect(changedBy?.displayName == "Ada")
        // Told again of the same change (a store batching its observers, say), it sends nothing:
        // the next message is the deletion.
        feed.publish(.quoteEdited(QuoteID(1), version: 2))
        #expect(try await store.dispatch(.addQuote(QuoteDraft(text: "Other", author: "B"), by: Self.ada, at: Self.date))
            == .success(.quoteAdded(QuoteID(2))))
        try await Self.edit(store, QuoteID(2), to: "Other, edited")
        try await Self.edit(store, to: "Third")
        guard case let .changed(third, _) = await messages.next() else {
            Issue.record("no second change")
            return
        }
        #expect(third.version == 3)
    }

    @Test func aDeletionIsTheLastMessage() async throws {
        let (feed, store) = try Self.make()
        #expect(try await store.dispatch(.addQuote(QuoteDraft(text: "Mine", author: "Ada"), by: Self.ada, at: Self.date))
            == .success(.quoteAdded(QuoteID(2))))
        var messages = feed.listen(to: QuoteID(2), lastSeenVersion: 1).makeAsyncIterator()
        #expect(feed.listenerCount == 1)
        #expect(try await store.dispatch(.deleteQuote(QuoteID(2), by: Self.ada, at: Self.date)) == .success(.quoteDeleted(QuoteID(2))))
        #expect(await messages.next() == .deleted(QuoteID(2)))
        #expect(await messages.next() == nil)
        #expect(feed.listenerCount == 0)
    }

    @Test func anUnknownQuoteIsDeletedAtOnce() async throws {
        let (feed, _) = try Self.make()
        #expect(!feed.contains(QuoteID(9)))
        let messages = feed.listen(to: QuoteID(9), lastSeenVersion: nil)
        var received: [QuoteFeedMessage] = []
        for await message in messages { received.append(message) }
        #expect(received == [.deleted(QuoteID(9))])
        #expect(feed.listenerCount == 0)
    }

    @Test func aListenerThatStopsIsForgotten() async throws {
        let (feed, _) = try Self.make()
        let messages = feed.listen(to: QuoteID(1), lastSeenVersion: nil)
        let consumer = Task {
            for await _ in messages {}
        }
        #expect(feed.listenerCount == 1)
        consumer.cancel()
        #expect(try await Self.waitUntil { feed.listenerCount == 0 })
    }

    @Test func everyListenerGetsTheHeartbeat() async throws {
        let (feed, _) = try Self.make(heartbeat: .milliseconds(20))
        var first = feed.listen(to: QuoteID(1), lastSeenVersion: 1).makeAsyncIterator()
        var second = feed.listen(to: QuoteID(1), lastSeenVersion: 1).makeAsyncIterator()
        #expect(await first.next() == .heartbeat)
        #expect(await second.next() == .heartbeat)
    }
}

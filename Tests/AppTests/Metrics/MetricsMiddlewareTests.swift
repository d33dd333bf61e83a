import App
import Foundation
import Logging
import Store
import StoreSQLite
import Testing

/// The store's metrics middleware counts applied actions by kind and refused ones by kind and
/// reason, and the registry prints them.
@Suite struct MetricsMiddlewareTests {
    let date = Date(timeIntervalSince1970: 1_000)

    func draft(_ text: String) -> QuoteDraft { QuoteDraft(text: text, author: "Someone") }

    @Test func countsAppliedAndRefusedActions() async throws {
        let metrics = MetricsRegistry()
        let store = try Store(
            journal: try SQLiteJournal(path: ":memory:"), seed: [.addQuote(draft("Seed"), by: nil, at: date)],
            middleware: [metrics.storeMiddleware], logger: .discarding())
        _ = try await store.dispatch(.editQuote(QuoteID(1), draft("Second"), baseVersion: 1, by: nil, at: date))
        _ = try await store.dispatch(.editQuote(QuoteID(1), draft("Stale"), baseVersion: 1, by: nil, at: date))
        _ = try await store.dispatch(.editQuote(QuoteID(1), draft("Stale too"), baseVersion: 1, by: nil, at: date))
        _ = try await store.dispatch(.editQuote(QuoteID(9), draft("Nowhere"), baseVersion: 1, by: nil, at: date))
        _ = try await store.dispatch(.addQuote(draft("Third"), by: nil, at: date))
        await store.close()

        #expect(metrics.actions.value("edit_quote", .applied) == 1)
        #expect(metrics.actions.value("edit_quote", .refused(reason: "stale_version")) == 2)
        #expect(metrics.actions.value("edit_quote", .refused(reason: "quote_not_found")) == 1)
        #expect(metrics.actions.value("add_quote", .applied) == 1, "the seed, applied at start-up, is not counted")
        #expect(
            metrics.exposition() == """
                # HELP quotebook_http_requests_total HTTP requests answered, by route (the route enum's case, \
                or static_file, unmatched, rejected) and status code.
                # TYPE quotebook_http_requests_total counter
                # HELP quotebook_actions_total Store actions, by kind and outcome (applied, or refused with the reducer's reason).
                # TYPE quotebook_actions_total counter
                quotebook_actions_total{kind="add_quote",outcome="applied"} 1
                quotebook_actions_total{kind="edit_quote",outcome="applied"} 1
                quotebook_actions_total{kind="edit_quote",outcome="refused",reason="quote_not_found"} 1
                quotebook_actions_total{kind="edit_quote",outcome="refused",reason="stale_version"} 2
                # HELP quotebook_mail_total Queued mail by outcome: sent (accepted by the relay), retried (failed for now, \
                queued again), failed (given up).
                # TYPE quotebook_mail_total counter
                quotebook_mail_total{outcome="sent"} 0
                quotebook_mail_total{outcome="retried"} 0
                quotebook_mail_total{outcome="failed"} 0

                """)
    }

    @Test func theMiddlewareCountsWhatItIsShown() {
        let counters = ActionCounters()
        let middleware = MetricsMiddleware(counters: counters)
        let action = AppAction.setFavourite(UserID(1), QuoteID(2), at: date)
        middleware.applied(action, event: .profileChanged(UserID(1)), sequence: 5)
        middleware.refused(action, because: .userNotFound(UserID(1)))
        middleware.refused(action, because: .quoteNotFound(QuoteID(2)))
        middleware.refused(action, because: .quoteNotFound(QuoteID(3)))
        #expect(
            counters.all().map { "\($0.key.kind) \($0.key.outcome) \($0.count)" } == [
                "set_favourite applied 1",
                "set_favourite refused(reason: \"quote_not_found\") 2",
                "set_favourite refused(reason: \"user_not_found\") 1",
            ])
    }
}

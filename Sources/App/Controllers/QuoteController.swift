package import Foundation
package import Store

/// The logic of the quote pages: reads the store, validates and saves edits, and answers
/// with a state for the view to render. No HTTP, no HTML.
package struct QuoteController: Sendable {
    private let store: Store
    private let now: @Sendable () -> Date

    /// How many recent quotes the home page lists under the favourite.
    package static let recentCount = 10

    package init(store: Store, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The favourite (for now the most recently added or edited quote) and the newest quotes.
    package func home() -> HomeState {
        let state = store.state
        let favourite = state.lastChangedQuote.flatMap { state.quotes[$0] }
        return .showing(favourite: favourite, recent: state.newestQuotes(limit: Self.recentCount))
    }

    package func show(_ id: QuoteID) -> QuoteState {
        guard let quote = store.state.quotes[id] else { return .notFound }
        return .showing(quote)
    }

    /// The edit form, filled in with the quote as it is now.
    package func edit(_ id: QuoteID) -> QuoteEditState {
        guard let quote = store.state.quotes[id] else { return .notFound }
        return .editing(QuoteForm(quote: quote), problems: [:])
    }

    /// Saves `draft` over quote `id` if nobody changed it since `baseVersion`.
    ///
    /// - Throws: ``StoreError`` when the change cannot be made durable.
    package func save(_ id: QuoteID, draft: QuoteDraft, baseVersion: Int) async throws(StoreError) -> QuoteEditState {
        let action = AppAction.editQuote(id, draft, baseVersion: baseVersion, by: nil, at: now())
        switch try await store.dispatch(action) {
        case .success:
            guard let quote = store.state.quotes[id] else { return .notFound }
            return .saved(quote)
        case .failure(.quoteNotFound):
            return .notFound
        case .failure(.staleVersion(let current)):
            return .conflict(current: current, mine: QuoteForm(id: id, draft: draft, version: current.version))
        case .failure(.invalidQuote(let problems)):
            return .editing(QuoteForm(id: id, draft: draft, version: baseVersion), problems: problems)
        }
    }
}

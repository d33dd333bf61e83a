package import Basics
package import Foundation
package import Store

/// The logic of the quote pages: reads the store, validates and saves edits, and answers
/// with a state for the view to render. No HTTP, no HTML.
///
/// A class of constants, as ``ProfileController``: the coordinator copied the struct (its
/// store, clock and history reads retained and released) on every home, quote and history page.
package final class QuoteController: Sendable {
    private let store: any StateStore
    private let now: @Sendable () -> Date
    /// History pages already read, by quote version (``QuoteHistoryReads``).
    private let historyReads = QuoteHistoryReads()

    /// How many recent quotes the home page lists under the favourite.
    package static let recentCount = 10
    /// How many quotes a page of the list shows.
    package static let pageSize = 20

    package init(store: any StateStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The viewer's favourite when they have one, else the most recently added or edited quote,
    /// and the newest quotes.
    package func home(viewer: UserID?) -> HomeState {
        Self.home(viewer: viewer, in: store.publishedState)
    }

    /// Each method reads the state once, shared (``PublishedState``), and reaches its tables
    /// through it: a copy of the whole state, even one passed on to a function, retained every
    /// table (eleven) and released them again.
    private static func home(viewer: UserID?, in published: PublishedState) -> HomeState {
        let own = viewer.flatMap { published.state.favourite(of: $0) }.flatMap { published.state.quotes[$0] }
        let favourite = own ?? published.state.lastChangedQuote.flatMap { published.state.quotes[$0] }
        let recent = published.state.newestQuoteIDs(limit: Self.recentCount)
        return .showing(favourite: favourite.map { listed($0, in: published) }, recent: listed(recent, in: published))
    }

    /// `quote` with the account that added it when they have a photo, as `state` holds it.
    private static func listed(_ quote: Quote, in published: PublishedState) -> ListedQuote {
        ListedQuote(quote, addedBy: quote.addedBy.flatMap { ListedQuotes.pictured($0, in: published.state.users) })
    }

    /// The quotes of `ids`, in order, each with the account that added it when they have a photo
    /// (ids of no quote are left out): one pass with the tables held once, the way every list of
    /// quotes is made (closures capturing the whole state copied it for every quote of a list
    /// page; copying each quote out of the table was a third of this function's time).
    private static func listed(_ ids: some Collection<QuoteID>, in published: PublishedState) -> ListedQuotes {
        ListedQuotes(ids, of: published.state.quotes, pictured: published.state.users)
    }

    package func show(_ id: QuoteID, viewer: UserID?) -> QuoteState {
        Self.show(id, viewer: viewer, in: store.publishedState)
    }

    private static func show(_ id: QuoteID, viewer: UserID?, in published: PublishedState) -> QuoteState {
        guard let quote = published.state.quotes[id] else {
            guard let hidden = hiddenQuote(id, for: viewer, in: published) else { return .notFound }
            return .hidden(
                hidden.quote, addedBy: hidden.quote.addedBy.flatMap { published.state.users[$0] }, note: hidden.note,
                hiddenBy: hidden.note.by.flatMap { published.state.users[$0] })
        }
        let isFavourite = viewer.flatMap { published.state.favourite(of: $0) } == id
        return .showing(
            quote, addedBy: quote.addedBy.flatMap { published.state.users[$0] }, isFavourite: isFavourite,
            canDelete: viewer != nil && quote.addedBy == viewer)
    }

    /// Page `page` of every quote, newest first, or — when `search` has words — of the quotes
    /// whose text or author contains every word, ignoring case and accents.
    ///
    /// Costs the same on every page: the whole book's page is a slice of the order quotes were
    /// added in; a search is one pass of the search index (``QuoteSearchIndex``), then a slice.
    /// That pass takes milliseconds on a large book: see ``listImmediately(page:search:)``.
    package func list(page: Int, search: String = "") -> QuoteListState {
        Self.list(page: page, search: search, in: store.publishedState)
    }

    private static func list(page: Int, search: String, in published: PublishedState) -> QuoteListState {
        let query = SearchQuery(search)
        guard !query.isEmpty else { return Self.page(page, ofBook: published) }
        return Self.page(page, of: published.state.searchIndex.matches(query), for: query, typed: search, in: published)
    }

    /// ``list(page:search:)`` when it is quick: no search, a search already made in this version
    /// of the book (kept), or a small book (``QuoteSearchIndex/quickMatches(_:)``). Nil when it
    /// needs a byte search of a large book, milliseconds that must not be spent on an event loop.
    package func listImmediately(page: Int, search: String = "") -> QuoteListState? {
        Self.listImmediately(page: page, search: search, in: store.publishedState)
    }

    private static func listImmediately(page: Int, search: String, in published: PublishedState) -> QuoteListState? {
        let query = SearchQuery(search)
        guard !query.isEmpty else { return Self.page(page, ofBook: published) }
        guard let matches = published.state.searchIndex.quickMatches(query) else { return nil }
        return Self.page(page, of: matches, for: query, typed: search, in: published)
    }

    /// Page `page` of every quote in `state`, newest first.
    private static func page(_ page: Int, ofBook published: PublishedState) -> QuoteListState {
        let order = published.state.quoteOrder
        let pageCount = pageCount(of: order.count)
        guard page >= 1, page <= pageCount else { return .noSuchPage(pageCount: pageCount, search: nil) }
        let end = order.count - (page - 1) * pageSize
        let start = max(0, end - pageSize)
        let quotes = listed(order[start..<end].reversed(), in: published)
        return .showing(quotes, page: page, pageCount: pageCount, search: nil)
    }

    /// Page `page` of the quotes a search for `query` (as `typed`) found in `state`.
    private static func page(_ page: Int, of matches: [QuoteID], for query: SearchQuery, typed: String, in published: PublishedState)
        -> QuoteListState
    {
        let summary = QuoteSearch(typed: typed, matchCount: matches.count, isTruncated: query.isTruncated)
        let pageCount = pageCount(of: matches.count)
        guard page >= 1, page <= pageCount else { return .noSuchPage(pageCount: pageCount, search: summary) }
        let start = (page - 1) * pageSize
        let quotes = listed(matches[start..<min(matches.count, start + pageSize)], in: published)
        return .showing(quotes, page: page, pageCount: pageCount, search: summary)
    }

    /// How many versions a page of a quote's history shows (SPEC.md: 50).
    package static let historyPageSize = 50

    /// Pages of `size` needed for `count` items; an empty list is still one page.
    private static func pageCount(of count: Int, size: Int = pageSize) -> Int {
        Paging.pageCount(of: count, size: size)
    }

    /// Makes quote `id` the favourite of `user`.
    package func makeFavourite(_ id: QuoteID, for user: UserID) async throws(StoreError) -> FavouriteState {
        switch try await store.dispatch(.setFavourite(user, id, at: now())) {
        case .success: .chosen(id)
        case .failure: .notFound
        }
    }

    /// Adds `draft` as a new quote by `user`; the form again with its problems when invalid.
    ///
    /// - Throws: ``StoreError`` when the change cannot be made durable.
    package func add(_ draft: QuoteDraft, by user: UserID) async throws(StoreError) -> NewQuoteState {
        switch try await store.dispatch(.addQuote(draft, by: user, at: now())) {
        case .success(let event):
            guard let id = event.quoteID else { return .composing(draft, problems: [:]) }
            return .added(id)
        case .failure(.invalidQuote(let problems)):
            return .composing(draft, problems: problems)
        case .failure:
            return .composing(draft, problems: [:])
        }
    }

    /// Deletes quote `id` if `user` added it.
    package func delete(_ id: QuoteID, by user: UserID) async throws(StoreError) -> DeleteQuoteState {
        switch try await store.dispatch(.deleteQuote(id, by: user, at: now())) {
        case .success: .deleted(id)
        case .failure(.notAllowed): .notAllowed
        case .failure: .notFound
        }
    }

    /// Page `page` (1-based) of quote `id`'s versions, newest first, ``historyPageSize`` a page,
    /// with who made each. Only that page's versions are read from the journal: the quote's
    /// current version, in the state, says which they are (page 1 ends with it). A page read
    /// before at the quote's current version is not read again (``QuoteHistoryReads``), and is
    /// ready at once; so is the answer when there is nothing to read (no such quote or page).
    package func history(of id: QuoteID, page: Int = 1, viewer: UserID?) -> Step<QuoteHistoryState> {
        let published = store.publishedState
        guard let quote = published.state.quotes[id] ?? Self.hiddenQuote(id, for: viewer, in: published)?.quote else { return .now(.notFound) }
        let pageCount = Self.pageCount(of: quote.version, size: Self.historyPageSize)
        guard page >= 1, page <= pageCount else { return .now(.noSuchPage(quote, pageCount: pageCount)) }
        let key = QuoteHistoryReads.Key(quote: id, version: quote.version, page: page)
        if let versions = historyReads.versions(for: key) {
            return .now(history(quote, versions: versions, page: page, pageCount: pageCount, viewer: viewer, in: published))
        }
        let newest = quote.version - (page - 1) * Self.historyPageSize
        return .later { [self] in
            let versions = try await store.history(of: id, versions: max(1, newest - Self.historyPageSize + 1)...newest)
            // Empty when the quote was deleted since the state was read.
            guard !versions.isEmpty else { return .notFound }
            historyReads.remember(versions, for: key)
            return history(quote, versions: versions, page: page, pageCount: pageCount, viewer: viewer, in: store.publishedState)
        }
    }

    /// The page of `quote`'s history holding `versions` (oldest first), with who made each as
    /// `state` knows them.
    private func history(
        _ quote: Quote, versions: [QuoteVersion], page: Int, pageCount: Int, viewer: UserID?, in published: PublishedState
    ) -> QuoteHistoryState {
        .showing(
            quote, versions: HistoryVersions(oldestFirst: versions, users: published.state.users),
            page: page, pageCount: pageCount, canRestore: viewer != nil && published.state.quotes[quote.id] != nil)
    }

    /// Hidden quote `id`, when `viewer` is a moderator: to everyone else it is not there.
    private static func hiddenQuote(_ id: QuoteID, for viewer: UserID?, in published: PublishedState) -> HiddenQuote? {
        guard published.state.moderation.isModerator(viewer) else { return nil }
        return published.state.moderation.hidden[id]
    }

    /// Makes version `version` of quote `id` current again, as a new version by `user`. Reads
    /// that version and the one after it from the journal, no more: without a next one, it is
    /// the current version already.
    package func restore(_ id: QuoteID, version: Int, by user: UserID) async throws(StoreError) -> RestoreState {
        guard store.state.quotes[id] != nil, version >= 1, version < .max else { return .notFound }
        let versions = try await store.history(of: id, versions: version...version + 1)
        guard let old = versions.first, old.version == version else { return .notFound }
        if versions.count == 1 { return .alreadyCurrent(id) }
        let draft = QuoteDraft(text: old.text, author: old.author)
        switch try await store.dispatch(.restoreQuote(id, draft, fromVersion: version, by: user, at: now())) {
        case .success(.quoteRestored(_, let newVersion)): return .restored(id, version: newVersion)
        case .success: return .notFound
        // Read before a concurrent change made it current, or the quote was deleted meanwhile.
        case .failure:
            return store.state.quotes[id]?.version == version ? .alreadyCurrent(id) : .notFound
        }
    }

    /// The edit form, filled in with the quote as it is now.
    package func edit(_ id: QuoteID) -> QuoteEditState {
        guard let quote = store.state.quotes[id] else { return .notFound }
        return .editing(QuoteForm(quote: quote), problems: [:])
    }

    /// Saves `draft` over quote `id` if nobody changed it since `baseVersion`.
    ///
    /// - Throws: ``StoreError`` when the change cannot be made durable.
    package func save(_ id: QuoteID, draft: QuoteDraft, baseVersion: Int, by user: UserID) async throws(StoreError) -> QuoteEditState {
        let action = AppAction.editQuote(id, draft, baseVersion: baseVersion, by: user, at: now())
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
        case .failure(.userNotFound), .failure(.usernameTaken), .failure(.invalidDisplayName), .failure(.notAllowed),
            .failure(.alreadyReported), .failure(.reportNotFound), .failure(.invalidReason):
            // An edit is never refused for an account's reason; answer as for a vanished quote.
            return .notFound
        }
    }
}

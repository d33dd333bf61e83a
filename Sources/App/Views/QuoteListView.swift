import Store
import Templates

/// Renders ``QuoteListState``: a page of quotes (the whole book's, or a search's) with the search
/// box and previous and next links that keep the search, or a 404 page naming how many pages
/// there are.
package enum QuoteListView {
    static let fieldNames = FormFieldNames.of(QuoteSearchField.self)
    /// Where the search form goes, and the link back to every quote: the first page, unsearched.
    static let searchURL = TemplateValue.string(QuotesRoute.list(page: 1).path)

    /// Answers the template's lookups directly (``TemplateObject``): no dictionary per render.
    /// Made for every request but read only when the page's skeleton is made (``PageSkeletons``):
    /// it keeps the listed quotes as they are, and makes the cards and the search summary only
    /// when the template asks for them.
    struct Context: Sendable, TemplateObject, TemplateValueConvertible {
        let listed: ListedQuotes
        let page: Int
        let pageCount: Int
        let search: QuoteSearch?

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "quotes": .list(QuoteCard.cards(listed).map { .custom($0) })
            case "hasQuotes": .bool(!listed.isEmpty)
            case "page", "pageNumber": .int(page)
            case "pageCount": .int(pageCount)
            case "previousURL": page > 1 ? .string(QuotesRoute.list(page: page - 1, search: search?.typed ?? "").path) : .null
            case "nextURL": page < pageCount ? .string(QuotesRoute.list(page: page + 1, search: search?.typed ?? "").path) : .null
            case "isPaged": .bool(pageCount > 1)
            // Past the first page the list goes on counting where the page before ended.
            case "start": page > 1 ? .string(String((page - 1) * QuoteController.pageSize + 1)) : .null
            case "searchURL": QuoteListView.searchURL
            case "fields": QuoteListView.fieldNames
            case "searchValue": .string(search?.typed ?? "")
            case "search": search.map(Self.searchValue) ?? .null
            default: nil
            }
        }

        private static func searchValue(_ search: QuoteSearch) -> TemplateValue {
            .object([
                "typed": .string(search.typed),
                "matches": .string(search.matchCount == 1 ? "1 quote matches." : "\(search.matchCount) quotes match."),
                "isTruncated": .bool(search.isTruncated), "maximumWords": .int(SearchQuery.maximumWords),
            ])
        }
    }

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``).
    static func sharedKey(quotes: ListedQuotes, page: Int, pageCount: Int, search: QuoteSearch?) -> PageContentKey {
        var key = PageContentKey(capacity: 9 + 4 * quotes.count, textBytes: search?.typed.utf8.count ?? 0)
        key.append(page)
        key.append(pageCount)
        key.append(search == nil ? -1 : search!.matchCount)
        key.append(search?.isTruncated == true ? 1 : 0)
        if let search { key.append(search.typed) }
        key.append(quotes)
        return key
    }

    package static func page(for state: QuoteListState) -> Page {
        switch state {
        case let .showing(quotes, page, pageCount, search):
            return Page(
                template: .quotes, context: Context(listed: quotes, page: page, pageCount: pageCount, search: search),
                sharedKey: sharedKey(quotes: quotes, page: page, pageCount: pageCount, search: search))
        case let .noSuchPage(pageCount, search):
            let pages = "\(pageCount) page\(pageCount == 1 ? "" : "s")"
            let first = QuotesRoute.list(page: 1, search: search?.typed ?? "").path
            return ErrorView.page(
                for: .notFoundMessage(
                    search.map { "There is no such page of quotes matching “\($0.typed)”. The search has \(pages); the first is at \(first)." }
                        ?? "There is no such page of quotes. The book has \(pages); the first is at \(first)."))
        }
    }
}

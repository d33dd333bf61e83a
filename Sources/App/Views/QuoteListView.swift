import Templates

/// Renders ``QuoteListState``: a page of quotes with previous and next links, or a 404 page
/// naming how many pages there are.
package enum QuoteListView {
    /// Answers the template's lookups directly (``TemplateObject``): no dictionary per render.
    struct Context: Sendable, TemplateObject, TemplateValueConvertible {
        let quotes: [QuoteCard]
        let page: Int
        let pageCount: Int
        let previousURL: String?
        let nextURL: String?

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "quotes": .list(quotes.map { .custom($0) })
            case "hasQuotes": .bool(!quotes.isEmpty)
            case "page": .int(page)
            case "pageCount": .int(pageCount)
            case "previousURL": previousURL.map(TemplateValue.string) ?? .null
            case "nextURL": nextURL.map(TemplateValue.string) ?? .null
            case "isPaged": .bool(pageCount > 1)
            default: nil
            }
        }
    }

    package static func page(for state: QuoteListState) -> Page {
        switch state {
        case let .showing(quotes, page, pageCount):
            Page(
                template: .quotes,
                context: Context(
                    quotes: quotes.map { QuoteCard($0) }, page: page, pageCount: pageCount,
                    previousURL: page > 1 ? QuotesRoute.list(page: page - 1).path : nil,
                    nextURL: page < pageCount ? QuotesRoute.list(page: page + 1).path : nil))
        case .noSuchPage(let pageCount):
            ErrorView.page(
                for: .notFoundMessage(
                    "There is no such page of quotes. The book has \(pageCount) page\(pageCount == 1 ? "" : "s"); "
                        + "the first is at \(QuotesRoute.list(page: 1).path)."))
        }
    }
}

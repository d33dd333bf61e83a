import Templates

/// Renders ``QuoteListState``: a page of quotes with previous and next links, or a 404 page
/// naming how many pages there are.
package enum QuoteListView {
    struct Context: Sendable, TemplateValueConvertible {
        let quotes: [QuoteCard]
        let page: Int
        let pageCount: Int
        let previousURL: String?
        let nextURL: String?

        var templateValue: TemplateValue {
            .object([
                "quotes": .list(quotes.map(\.templateValue)), "hasQuotes": .bool(!quotes.isEmpty), "page": .int(page),
                "pageCount": .int(pageCount), "previousURL": previousURL.map(TemplateValue.string) ?? .null,
                "nextURL": nextURL.map(TemplateValue.string) ?? .null, "isPaged": .bool(pageCount > 1),
            ])
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

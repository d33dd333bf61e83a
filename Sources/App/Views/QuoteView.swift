import HTTPServer
import Store
import Templates

/// Renders ``QuoteState``: the quote's page, with the actions the viewer may take.
package enum QuoteView {
    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let favouriteURL: String
        let isFavourite: Bool
        let historyURL: String
        /// Where the delete form posts; nil unless the viewer added the quote.
        let deleteURL: String?

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "favouriteURL": .string(favouriteURL), "isFavourite": .bool(isFavourite),
                "historyURL": .string(historyURL), "deleteURL": deleteURL.map(TemplateValue.string) ?? .null,
            ])
        }
    }

    package static func page(for state: QuoteState) -> Page {
        switch state {
        case let .showing(quote, addedBy, isFavourite, canDelete):
            Page(
                template: .quote,
                context: Context(
                    quote: QuoteCard(quote, addedBy: addedBy), favouriteURL: QuotesRoute.favourite(quote.id).path,
                    isFavourite: isFavourite, historyURL: QuotesRoute.history(quote.id).path,
                    deleteURL: canDelete ? QuotesRoute.delete(quote.id).path : nil))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

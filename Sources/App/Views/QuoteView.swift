import Store
import Templates

/// Renders ``QuoteState``: one quote with who added it and when it last changed.
package enum QuoteView {
    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let favouriteURL: String
        let isFavourite: Bool

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "favouriteURL": .string(favouriteURL), "isFavourite": .bool(isFavourite),
            ])
        }
    }

    package static func page(for state: QuoteState) -> Page {
        switch state {
        case let .showing(quote, addedBy, isFavourite):
            Page(
                template: .quote,
                context: Context(
                    quote: QuoteCard(quote, addedBy: addedBy), favouriteURL: QuotesRoute.favourite(quote.id).path,
                    isFavourite: isFavourite))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

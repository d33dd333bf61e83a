import Store
import Templates

/// Renders ``QuoteState``: one quote with who added it and when it last changed.
package enum QuoteView {
    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let favouriteURL: String
        let isFavourite: Bool
        /// The quote's event stream and the script that follows it, so the open page updates
        /// itself (`Public/live.js`); without the script the page is the same and a reload shows changes.
        let eventsURL: String
        let liveScript: String

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "favouriteURL": .string(favouriteURL), "isFavourite": .bool(isFavourite),
                "eventsURL": .string(eventsURL), "liveScript": .string(liveScript),
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
                    isFavourite: isFavourite, eventsURL: QuotesRoute.events(quote.id).path,
                    liveScript: PublicAsset.liveQuote.path))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

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
        /// The quote's event stream and the script that follows it, so the open page updates
        /// itself (`Public/live.js`); without the script the page is the same and a reload shows changes.
        let eventsURL: String
        let liveScript: String

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "favouriteURL": .string(favouriteURL), "isFavourite": .bool(isFavourite),
                "historyURL": .string(historyURL), "deleteURL": deleteURL.map(TemplateValue.string) ?? .null,
                "eventsURL": .string(eventsURL), "liveScript": .string(liveScript),
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
                    deleteURL: canDelete ? QuotesRoute.delete(quote.id).path : nil,
                    eventsURL: QuotesRoute.events(quote.id).path, liveScript: PublicAsset.liveQuote.path))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

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

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``): whether it is
    /// their favourite and whether they may delete it are part of it.
    static func sharedKey(quote: Quote, addedBy: User?, isFavourite: Bool, canDelete: Bool) -> PageContentKey {
        var key = PageContentKey(numbers: isFavourite ? 1 : 0, canDelete ? 1 : 0)
        key.append(quote)
        key.append(addedBy)
        return key
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
                    eventsURL: QuotesRoute.events(quote.id).path, liveScript: PublicAsset.liveQuote.path),
                sharedKey: sharedKey(quote: quote, addedBy: addedBy, isFavourite: isFavourite, canDelete: canDelete))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

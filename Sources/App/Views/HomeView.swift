import Store
import Templates

/// Renders ``HomeState``: the favourite quote, large, and the most recent quotes below it.
package enum HomeView {
    /// Answers the template's lookups directly (``TemplateObject``): no dictionary per render.
    /// Made for every request but read only when the page's skeleton is made (``PageSkeletons``):
    /// the cards are made when the template asks for them.
    struct Context: Sendable, TemplateObject, TemplateValueConvertible {
        let favourite: ListedQuote?
        let recent: ListedQuotes

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "favourite": favourite.map { QuoteCard($0).templateValue } ?? .null
            case "recent": .list(QuoteCard.cards(recent).map { .custom($0) })
            case "hasRecent": .bool(!recent.isEmpty)
            default: nil
            }
        }
    }

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``).
    static func sharedKey(favourite: ListedQuote?, recent: ListedQuotes) -> PageContentKey {
        var key = PageContentKey(capacity: 2 + 4 * (recent.count + 1))
        key.append(favourite)
        key.append(recent)
        return key
    }

    package static func page(for state: HomeState) -> Page {
        switch state {
        case let .showing(favourite, recent):
            Page(
                template: .home, context: Context(favourite: favourite, recent: recent),
                sharedKey: sharedKey(favourite: favourite, recent: recent))
        }
    }
}

import Store
import Templates

/// Renders ``HomeState``: the favourite quote, large, and the most recent quotes below it.
package enum HomeView {
    /// Answers the template's lookups directly (``TemplateObject``): no dictionary per render.
    /// The cards are made into template values once, not at each look-up.
    struct Context: Sendable, TemplateObject, TemplateValueConvertible {
        let favourite: TemplateValue
        let recent: [TemplateValue]

        init(favourite: QuoteCard?, recent: [QuoteCard]) {
            self.favourite = favourite?.templateValue ?? .null
            self.recent = recent.map { .custom($0) }
        }

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "favourite": favourite
            case "recent": .list(recent)
            case "hasRecent": .bool(!recent.isEmpty)
            default: nil
            }
        }
    }

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``).
    static func sharedKey(favourite: ListedQuote?, recent: [ListedQuote]) -> PageContentKey {
        var key = PageContentKey()
        key.reserveCapacity(numbers: 2 + 4 * (recent.count + 1))
        key.append(favourite)
        key.append(recent)
        return key
    }

    package static func page(for state: HomeState) -> Page {
        switch state {
        case let .showing(favourite, recent):
            Page(
                template: .home, context: Context(favourite: favourite.map(QuoteCard.init), recent: QuoteCard.cards(recent)),
                sharedKey: sharedKey(favourite: favourite, recent: recent))
        }
    }
}

import Templates

/// Renders ``HomeState``: the favourite quote, large, and the most recent quotes below it.
package enum HomeView {
    /// Answers the template's lookups directly (``TemplateObject``): no dictionary per render.
    struct Context: Sendable, TemplateObject, TemplateValueConvertible {
        let favourite: QuoteCard?
        let recent: [QuoteCard]

        func value(forKey key: String) -> TemplateValue? {
            switch key {
            case "favourite": favourite?.templateValue ?? .null
            case "recent": .list(recent.map { .custom($0) })
            case "hasRecent": .bool(!recent.isEmpty)
            default: nil
            }
        }
    }

    package static func page(for state: HomeState) -> Page {
        switch state {
        case let .showing(favourite, recent):
            Page(template: .home, context: Context(favourite: favourite.map { QuoteCard($0) }, recent: recent.map { QuoteCard($0) }))
        }
    }
}

import Templates

/// Renders ``HomeState``: the favourite quote, large, and the most recent quotes below it.
package enum HomeView {
    struct Context: Sendable, TemplateValueConvertible {
        let favourite: QuoteCard?
        let recent: [QuoteCard]

        var templateValue: TemplateValue {
            .object([
                "favourite": favourite?.templateValue ?? .null,
                "recent": .list(recent.map(\.templateValue)),
                "hasRecent": .bool(!recent.isEmpty),
            ])
        }
    }

    package static func page(for state: HomeState) -> Page {
        switch state {
        case let .showing(favourite, recent):
            Page(template: .home, context: Context(favourite: favourite.map { QuoteCard($0) }, recent: recent.map { QuoteCard($0) }))
        }
    }
}

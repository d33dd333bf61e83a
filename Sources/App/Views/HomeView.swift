/// Renders ``HomeState``: the favourite quote, large, and the most recent quotes below it.
package enum HomeView {
    struct Context: Encodable, Sendable {
        let favourite: QuoteCard?
        let recent: [QuoteCard]
        var hasRecent: Bool { !recent.isEmpty }

        enum CodingKeys: String, CodingKey { case favourite, recent, hasRecent }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(favourite, forKey: .favourite)
            try container.encode(recent, forKey: .recent)
            try container.encode(hasRecent, forKey: .hasRecent)
        }
    }

    package static func page(for state: HomeState) -> Page {
        switch state {
        case let .showing(favourite, recent):
            Page(template: .home, context: Context(favourite: favourite.map(QuoteCard.init), recent: recent.map(QuoteCard.init)))
        }
    }
}

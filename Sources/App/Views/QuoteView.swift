import Templates

/// Renders ``QuoteState``: one quote with who added it and when it last changed.
package enum QuoteView {
    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard

        var templateValue: TemplateValue { .object(["quote": quote.templateValue]) }
    }

    package static func page(for state: QuoteState) -> Page {
        switch state {
        case .showing(let quote):
            Page(template: .quote, context: Context(quote: QuoteCard(quote)))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }
}

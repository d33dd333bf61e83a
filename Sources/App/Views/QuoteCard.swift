import Store
import Templates

/// A quote as templates show it: text, author, links, dates written out.
///
/// The card holds the quote and works each field out only when the template asks for it (a
/// ``TemplateObject``): a list row reads `url`, `text` and `author` and never formats a date.
/// Texts go out as plain `.string`s for the renderer to escape.
///
/// A card without an adder answers from its quote alone, and a quote's id and version name its
/// content (ids are never reused; every change makes a new version), so that pair is its
/// ``fragmentKey``: a list row is rendered once per version of its quote.
struct QuoteCard: Sendable, TemplateObject, TemplateValueConvertible {
    private let quote: Quote
    /// Who added it, when the page shows a link to their profile.
    private let adder: User?

    init(_ quote: Quote, addedBy adder: User? = nil) {
        self.quote = quote
        self.adder = adder
    }

    var id: Int { quote.id.rawValue }
    var text: String { quote.text }
    var author: String { quote.author }
    var url: String { QuotesRoute.show(quote.id).path }
    var editURL: String { QuotesRoute.edit(quote.id).path }
    var addedBy: String { adder?.displayName ?? (quote.addedBy == nil ? "no one" : "a former member") }
    /// The profile of who added it; nil for the seed quote, added by no one, or when not given.
    var addedByURL: String? { adder.map { ProfilesRoute.show($0.username).path } }
    var addedAt: String { DateText.readable(quote.addedAt) }
    var addedAtISO: String { DateText.machine(quote.addedAt) }
    var updatedAt: String { DateText.readable(quote.updatedAt) }
    var updatedAtISO: String { DateText.machine(quote.updatedAt) }
    var version: Int { quote.version }
    var isEdited: Bool { quote.version > 1 }

    var fragmentKey: TemplateFragmentKey? {
        // The adder's display name can change under the same quote version.
        adder == nil ? TemplateFragmentKey(QuoteCard.self, id: quote.id.rawValue, version: quote.version) : nil
    }

    func value(forKey key: String) -> TemplateValue? {
        switch key {
        case "id": .int(id)
        case "text": .string(text)
        case "author": .string(author)
        case "url": .string(url)
        case "editURL": .string(editURL)
        case "addedBy": .string(addedBy)
        case "addedByURL": addedByURL.map(TemplateValue.string) ?? .null
        case "addedAt": .string(addedAt)
        case "addedAtISO": .string(addedAtISO)
        case "updatedAt": .string(updatedAt)
        case "updatedAtISO": .string(updatedAtISO)
        case "version": .int(version)
        case "isEdited": .bool(isEdited)
        default: nil
        }
    }
}

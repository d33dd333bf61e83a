import Store
import Templates

/// A quote as templates show it: text, author, links, dates written out.
///
/// The card holds the quote and works each field out only when the template asks for it (a
/// ``TemplateObject``): a list row reads `url`, `text` and `author` and never formats a date.
/// Texts go out as plain `.string`s for the renderer to escape.
///
/// Beside a quote goes the photo of who added it, when they have one (`photo`, ``PersonPhoto``):
/// made only when the template asks, from the account the state holds with the quote.
///
/// A card without an adder or a photo answers from its quote alone, and a quote's id and
/// version name its content (ids are never reused; every change makes a new version), so that
/// pair is its ``fragmentKey``: a list row is rendered once per version of its quote.
struct QuoteCard: Sendable, TemplateObject, TemplateValueConvertible {
    /// The quote and who added it, as the list the page holds them: a card is that list and an
    /// index, so making one copies no quote (a copy retained its text and author, strings the
    /// state shares across both event loops' cores) and fits a template value's inline room
    /// (no box allocated per card; the index is 32 bits for that).
    private let list: ListedQuotes
    private let index: Int32
    /// Whether the card names who added it and links to their profile (a quote's own page), or
    /// shows them only by their photo (a list).
    private let namesAdder: Bool

    /// A card naming who added it, linked to their profile, their photo beside the name.
    init(_ quote: Quote, addedBy adder: User? = nil) {
        list = [ListedQuote(quote, addedBy: adder)]
        index = 0
        namesAdder = true
    }

    /// A card of a list, which shows who added it only by their photo.
    init(_ listed: ListedQuote) {
        self.init(in: [listed], at: 0)
    }

    private init(in list: ListedQuotes, at index: Int) {
        self.list = list
        self.index = Int32(index)
        namesAdder = false
    }

    /// The cards of a list, all sharing it.
    static func cards(_ list: ListedQuotes) -> [QuoteCard] {
        list.indices.map { QuoteCard(in: list, at: $0) }
    }

    /// The quote, lent from the list, not copied.
    private var quote: Quote {
        _read { yield list[quoteAt: Int(index)] }
    }

    /// Who added it, when the page shows a link to their profile.
    private var adder: User? {
        namesAdder ? list[adderAt: Int(index)] : nil
    }

    /// Whose photo goes beside it: who added it, when they have a photo.
    private var pictured: User? {
        list[adderAt: Int(index)]?.photo == nil ? nil : list[adderAt: Int(index)]
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
    /// The photo of who added it; beside their name it adds nothing for who cannot see it.
    var photo: PersonPhoto? {
        pictured.flatMap { PersonPhoto.beside(quoteAddedBy: $0, isNamed: adder != nil) }
    }

    var fragmentKey: TemplateFragmentKey? {
        // The adder's display name and photo can change under the same quote version.
        let hasAdder = list[adderAt: Int(index)] != nil
        let hasPhoto = hasAdder && list[adderAt: Int(index)]?.photo != nil
        return (namesAdder && hasAdder) || hasPhoto ? nil : TemplateFragmentKey(QuoteCard.self, id: quote.id.rawValue, version: quote.version)
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
        case "photo": photo?.templateValue ?? .null
        default: nil
        }
    }
}

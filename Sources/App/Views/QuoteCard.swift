import Store
import Templates

/// A quote as templates show it: text, author, links, dates already written out.
struct QuoteCard: Sendable, TemplateValueConvertible {
    let id: Int
    let text: String
    let author: String
    let url: String
    let editURL: String
    let addedBy: String
    /// The profile of who added it; nil for the seed quote, added by no one.
    let addedByURL: String?
    let addedAt: String
    let addedAtISO: String
    let updatedAt: String
    let updatedAtISO: String
    let version: Int
    let isEdited: Bool

    init(_ quote: Quote, addedBy adder: User? = nil) {
        id = quote.id.rawValue
        text = quote.text
        author = quote.author
        url = QuotesRoute.show(quote.id).path
        editURL = QuotesRoute.edit(quote.id).path
        addedBy = adder?.displayName ?? (quote.addedBy == nil ? "no one" : "a member")
        addedByURL = adder.map { ProfilesRoute.show($0.username).path }
        addedAt = DateText.readable(quote.addedAt)
        addedAtISO = DateText.machine(quote.addedAt)
        updatedAt = DateText.readable(quote.updatedAt)
        updatedAtISO = DateText.machine(quote.updatedAt)
        version = quote.version
        isEdited = quote.version > 1
    }

    var templateValue: TemplateValue {
        .object([
            "id": .int(id), "text": .string(text), "author": .string(author), "url": .string(url),
            "editURL": .string(editURL), "addedBy": .string(addedBy),
            "addedByURL": addedByURL.map(TemplateValue.string) ?? .null, "addedAt": .string(addedAt),
            "addedAtISO": .string(addedAtISO), "updatedAt": .string(updatedAt), "updatedAtISO": .string(updatedAtISO),
            "version": .int(version), "isEdited": .bool(isEdited),
        ])
    }
}

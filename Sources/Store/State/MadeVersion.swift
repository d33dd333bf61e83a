/// A version of a quote that one person made, with the quote it belongs to and how they made it:
/// what an export lists as their work, deleted quotes' versions included.
package struct MadeVersion: Sendable, Equatable {
    /// How the version came about.
    package enum Kind: String, Sendable, Equatable {
        case added, edited, restored
    }

    package var quote: QuoteID
    package var kind: Kind
    /// Its number among the quote's versions (the add is 1), text, author and date.
    package var version: QuoteVersion

    package init(quote: QuoteID, kind: Kind, version: QuoteVersion) {
        self.quote = quote
        self.kind = kind
        self.version = version
    }
}

/// Picks one person's versions out of the journal's quote-indexed entries, fed in sequence
/// order (each with the quote it is indexed under): it numbers every quote's versions as the
/// reducer does (the add is 1, each edit or restore the next) and keeps those whose actor
/// (``AppAction/actor``) is the person. Quote ids are never reused, so a deleted quote's
/// versions keep their numbers. Each journal's walk feeds it, so both number alike.
package struct MadeVersionTally {
    package let person: UserID
    /// The versions kept so far, oldest first.
    package private(set) var versions: [MadeVersion] = []
    /// Versions counted so far, by quote.
    private var counts: [QuoteID: Int] = [:]

    package init(person: UserID) {
        self.person = person
    }

    /// Counts `action`, indexed under `quote`, and keeps it when it is a version the person made.
    package mutating func count(_ action: AppAction, quote: QuoteID) {
        let kind: MadeVersion.Kind
        if case .addQuote = action {
            kind = .added
        } else if case .editQuote = action {
            kind = .edited
        } else if case .restoreQuote = action {
            kind = .restored
        } else {
            return
        }
        let number = counts[quote, default: 0] + 1
        counts[quote] = number
        guard action.actor == person, let version = QuoteVersion.versions(from: CollectionOfOne(action), startingAt: number).first
        else { return }
        versions.append(MadeVersion(quote: quote, kind: kind, version: version))
    }
}

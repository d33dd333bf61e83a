package import Store

/// What the home page shows.
package enum HomeState: Sendable, Equatable {
    /// `favourite` is nil only when the book is empty.
    case showing(favourite: Quote?, recent: [Quote])
}

/// What a quote's page shows.
package enum QuoteState: Sendable, Equatable {
    /// The quote, the account that added it (nil for the seed), and whether it is the viewer's
    /// favourite.
    case showing(Quote, addedBy: User?, isFavourite: Bool)
    case notFound
}

/// One page of the whole book.
package enum QuoteListState: Sendable, Equatable {
    /// Quotes of page `page` (1-based) of `pageCount`, newest first.
    case showing([Quote], page: Int, pageCount: Int)
    /// The page asked for does not exist (out of range, or not a number).
    case noSuchPage(pageCount: Int)
}

/// Where making a quote one's favourite stands.
package enum FavouriteState: Sendable, Equatable {
    case chosen(QuoteID)
    case notFound
}

/// Where editing a quote stands.
package enum QuoteEditState: Sendable, Equatable {
    /// The form, with a problem per wrong field (none when first opened).
    case editing(QuoteForm, problems: [QuoteField: FieldProblem])
    /// The change is stored; this is the quote now.
    case saved(Quote)
    /// Someone saved in between: their quote, and the person's own text to reconsider, carrying
    /// the current version so a second save is deliberate.
    case conflict(current: Quote, mine: QuoteForm)
    case notFound
}

/// The contents of a quote form: what was typed and the version it started from.
package struct QuoteForm: Sendable, Equatable {
    package var id: QuoteID
    package var draft: QuoteDraft
    package var version: Int

    package init(id: QuoteID, draft: QuoteDraft, version: Int) {
        self.id = id
        self.draft = draft
        self.version = version
    }

    package init(quote: Quote) {
        self.init(id: quote.id, draft: QuoteDraft(text: quote.text, author: quote.author), version: quote.version)
    }
}

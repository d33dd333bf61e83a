package import Store

/// A quote as the home page and the lists show it, with the account that added it as the
/// state holds it, when the page shows them: their photo goes beside the quote. Read from the
/// state with the quote, never from storage.
package struct ListedQuote: Sendable, Equatable {
    /// The quote, lent by the state's table (``QuoteTable/Lent``): listing one retains the
    /// table's chunk, where a copy retained its text and author, strings the state shares
    /// across both event loops' cores.
    package let lent: QuoteTable.Lent
    /// Who added it, when the page shows them: nil for the seed, added by no one, and for a
    /// deleted account. A list shows who added a quote only by their photo, so the lists' quotes
    /// carry no adder without one (``QuoteController``): copying each one's account, then the
    /// listed quote, and destroying both was a quarter of a list page's reference counting.
    package var adder: User?

    package var quote: Quote {
        _read { yield lent.quote }
    }

    package init(_ quote: Quote, addedBy adder: User? = nil) {
        self.init(QuoteTable.Lent(quote), addedBy: adder)
    }

    package init(_ lent: QuoteTable.Lent, addedBy adder: User?) {
        self.lent = lent
        self.adder = adder
    }

    package static func == (lhs: ListedQuote, rhs: ListedQuote) -> Bool {
        lhs.quote == rhs.quote && lhs.adder == rhs.adder
    }
}

/// Quotes as a list shows them (``ListedQuote``), read from the state's table with each chunk
/// they are in held once. A list of twenty ``QuoteTable/Lent``s held their chunk twenty times,
/// and each hold and each drop wrote the chunk's count, a count both event loops write since
/// they list from the same chunks: on a list page, 80 reference counts fell on that one object
/// (counted with the objects' addresses), where now one does.
package struct ListedQuotes: Sendable, Equatable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The chunks the quotes are in, each once, in the order the list first reaches them.
    private var chunks: [[Quote?]] = []
    private var entries: [Entry] = []

    private struct Entry: Sendable {
        /// The index of the quote's chunk in `chunks`, and its slot in that chunk.
        var chunk: Int
        var slot: Int
        /// As ``ListedQuote/adder``.
        var adder: User?
    }

    package init() {}

    package init(arrayLiteral elements: ListedQuote...) {
        self.init(elements)
    }

    /// These quotes, each kept with the chunk it is lent from.
    package init(_ elements: some Sequence<ListedQuote>) {
        for element in elements {
            chunks.append(element.lent.chunk)
            entries.append(Entry(chunk: chunks.count - 1, slot: element.lent.slot, adder: element.adder))
        }
    }

    /// The quotes of `table` with ids `ids`, in that order (ids of no quote left out), each with
    /// the account in `users` that added it when they have a photo (``pictured(_:in:)``). A
    /// chunk is held once for each run of quotes in it: a page of the book or of a search,
    /// newest first, is one run for each chunk it spans. Quotes are read where they are, never
    /// copied.
    package init(_ ids: some Collection<QuoteID>, of table: QuoteTable, pictured users: [UserID: User]) {
        entries.reserveCapacity(ids.count)
        var runChunk = -1
        for id in ids {
            guard let place = table.place(of: id) else { continue }
            if runChunk != place.chunk {
                chunks.append(table.chunk(place.chunk))
                runChunk = place.chunk
            }
            entries.append(Entry(chunk: chunks.count - 1, slot: place.slot, adder: place.addedBy.flatMap { Self.pictured($0, in: users) }))
        }
    }

    /// The account `id` when it has a photo, which a list shows beside the quotes they added;
    /// nil for one without, read in place and not copied. Inlined, the look-up reads just the
    /// photo; called (or in a closure), the dictionary's getter copied each account out and
    /// destroyed it again: eight reference counts a quote, counted.
    @inline(__always)
    package static func pictured(_ id: UserID, in users: [UserID: User]) -> User? {
        guard let index = users.index(forKey: id), users.values[index].photo != nil else { return nil }
        return users.values[index]
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { entries.count }

    /// How many chunks the list holds: one for each run of its quotes in one chunk.
    package var heldChunkCount: Int { chunks.count }

    /// The quote at `index` and who added it, lent: its chunk held once more. The views read
    /// in place instead (``subscript(quoteAt:)``, ``subscript(adderAt:)``).
    package subscript(index: Int) -> ListedQuote {
        ListedQuote(QuoteTable.Lent(chunk: chunks[entries[index].chunk], slot: entries[index].slot), addedBy: entries[index].adder)
    }

    /// The quote at `index`, read where it is.
    package subscript(quoteAt index: Int) -> Quote {
        _read { yield chunks[entries[index].chunk][entries[index].slot]! }
    }

    /// Who added the quote at `index`, as ``ListedQuote/adder``.
    package subscript(adderAt index: Int) -> User? {
        _read { yield entries[index].adder }
    }

    package static func == (lhs: ListedQuotes, rhs: ListedQuotes) -> Bool {
        lhs.count == rhs.count && lhs.indices.allSatisfy { lhs[quoteAt: $0] == rhs[quoteAt: $0] && lhs[adderAt: $0] == rhs[adderAt: $0] }
    }
}

/// What the home page shows.
package enum HomeState: Sendable, Equatable {
    /// `favourite` is nil only when the book is empty.
    case showing(favourite: ListedQuote?, recent: ListedQuotes)
}

/// What a quote's page shows.
package enum QuoteState: Sendable, Equatable {
    /// The quote, the account that added it (nil for the seed), whether it is the viewer's
    /// favourite, and whether the viewer may delete it (they added it).
    case showing(Quote, addedBy: User?, isFavourite: Bool, canDelete: Bool)
    /// A hidden quote, as only moderators see it: as it was hidden, who hid it (nil: a former
    /// member), why and when.
    case hidden(Quote, addedBy: User?, note: ModerationNote, hiddenBy: User?)
    case notFound
}

/// One page of the whole book, or of the quotes matching a search.
package enum QuoteListState: Sendable, Equatable {
    /// Quotes of page `page` (1-based) of `pageCount`, newest first; `search` is nil for the
    /// whole book. A search that matched nothing is page 1 of 1, empty.
    case showing(ListedQuotes, page: Int, pageCount: Int, search: QuoteSearch?)
    /// The page asked for does not exist (out of range, or not a number); `search` as above.
    case noSuchPage(pageCount: Int, search: QuoteSearch?)
}

/// A search, as the list page shows it.
package struct QuoteSearch: Sendable, Equatable {
    /// What the person typed, kept for the search box and the page links.
    package var typed: String
    /// How many quotes matched every word.
    package var matchCount: Int
    /// The query had more words than are searched for (``SearchQuery/maximumWords``).
    package var isTruncated: Bool

    package init(typed: String, matchCount: Int, isTruncated: Bool) {
        self.typed = typed
        self.matchCount = matchCount
        self.isTruncated = isTruncated
    }
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

/// Where adding a quote stands.
package enum NewQuoteState: Sendable, Equatable {
    /// The form, with what was typed and a problem per wrong field (none when first opened).
    case composing(QuoteDraft, problems: [QuoteField: FieldProblem])
    /// The quote is stored with this id.
    case added(QuoteID)
}

/// Where deleting a quote stands.
package enum DeleteQuoteState: Sendable, Equatable {
    case deleted(QuoteID)
    /// Only the person who added a quote may delete it.
    case notAllowed
    case notFound
}

/// A page of a quote's history.
package enum QuoteHistoryState: Sendable, Equatable {
    /// The quote as it is now and the versions of page `page` (1-based) of `pageCount`, newest
    /// first, each with who made it (nil for the seed, or an account that no longer exists);
    /// `canRestore` when the viewer is signed in and the quote is not hidden.
    case showing(Quote, versions: HistoryVersions, page: Int, pageCount: Int, canRestore: Bool)
    /// The quote has no such page of history (out of range, or not a number): it has `pageCount`.
    case noSuchPage(Quote, pageCount: Int)
    case notFound
}

/// One version on the history page, with the account that made it.
package struct VersionEntry: Sendable, Equatable {
    package var version: QuoteVersion
    /// Nil for the seed (added by no one).
    package var editor: User?

    package init(_ version: QuoteVersion, editor: User?) {
        self.version = version
        self.editor = editor
    }
}

/// The versions of one page of a quote's history, newest first, each with who made it: the
/// versions as they were read (shared with ``QuoteHistoryReads``, not copied) and the people as
/// the state holds them now, made into entries only when read. A page answered from its
/// skeleton reads only the versions' numbers and each editor once; building an entry per
/// version for every request copied each version's text and its editor.
package struct HistoryVersions: RandomAccessCollection, Sendable, Equatable {
    /// The versions, oldest first, as the journal gives them.
    package let oldestFirst: [QuoteVersion]
    /// Everyone, by id: who made each version, nil for the seed or a former member.
    package let users: [UserID: User]

    package init(oldestFirst: [QuoteVersion], users: [UserID: User]) {
        self.oldestFirst = oldestFirst
        self.users = users
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { oldestFirst.count }

    /// Where entry `index` (newest first) is in ``oldestFirst``.
    private func position(of index: Int) -> Int {
        oldestFirst.count - 1 - index
    }

    package subscript(index: Int) -> VersionEntry {
        let version = oldestFirst[position(of: index)]
        return VersionEntry(version, editor: version.editedBy.flatMap { users[$0] })
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

/// Where restoring an earlier version stands.
package enum RestoreState: Sendable, Equatable {
    /// The version's text and author are current again, as version `version`.
    case restored(QuoteID, version: Int)
    /// That version is the current one already: nothing to do.
    case alreadyCurrent(QuoteID)
    /// No such quote, or no such version of it.
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

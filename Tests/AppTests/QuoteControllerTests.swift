import App
import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// Each state the quote logic controller can return, on an in-memory database.
@Suite struct QuoteControllerTests {
    let now = Date(timeIntervalSince1970: 5_000)
    let ada = UserID(1)

    func makeController() throws -> (QuoteController, Store) {
        let store = try Store(
            journal: try SQLiteJournal(path: ":memory:"),
            seed: SeedContent.actions(at: Date(timeIntervalSince1970: 1_000)) + [
                .signUp(Username("ada")!, displayName: "Ada", at: Date(timeIntervalSince1970: 1_000))
            ],
            logger: .discarding()
        )
        let now = self.now
        return (QuoteController(store: store, now: { now }), store)
    }

    @Test func homeShowsTheMostRecentlyChangedQuoteAsFavourite() async throws {
        let (controller, store) = try makeController()
        _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Second", author: "B"), by: nil, at: now))
        _ = try await controller.save(QuoteID(1), draft: QuoteDraft(text: "Edited first", author: "A"), baseVersion: 1, by: ada)
        guard case let .showing(favourite, recent) = controller.home(viewer: nil) else { Issue.record("not showing"); return }
        #expect(favourite?.quote.text == "Edited first")
        #expect(recent.map(\.quote.id) == [QuoteID(2), QuoteID(1)])
    }

    @Test func showReturnsTheQuote() throws {
        let (controller, _) = try makeController()
        guard case let .showing(quote, addedBy, isFavourite, _) = controller.show(QuoteID(1), viewer: nil) else {
            Issue.record("not showing")
            return
        }
        #expect(quote.author == SeedContent.einstein.author)
        #expect(addedBy == nil)
        #expect(!isFavourite)
    }

    @Test func showOfAnUnknownQuoteIsNotFound() throws {
        let (controller, _) = try makeController()
        #expect(controller.show(QuoteID(2), viewer: nil) == .notFound)
    }

    @Test func editOfAnUnknownQuoteIsNotFound() throws {
        let (controller, _) = try makeController()
        #expect(controller.edit(QuoteID(99)) == .notFound)
    }

    @Test func anEmptyBookHasNoFavourite() throws {
        let store = try Store(journal: try SQLiteJournal(path: ":memory:"), seed: [], logger: .discarding())
        let controller = QuoteController(store: store, now: { Date(timeIntervalSince1970: 0) })
        #expect(controller.home(viewer: nil) == .showing(favourite: nil, recent: []))
    }

    @Test func editStartsFromTheCurrentQuoteWithoutProblems() throws {
        let (controller, store) = try makeController()
        let quote = try #require(store.state.quotes[QuoteID(1)])
        #expect(controller.edit(QuoteID(1)) == .editing(QuoteForm(quote: quote), problems: [:]))
        #expect(controller.edit(QuoteID(9)) == .notFound)
    }

    @Test func savingAValidDraftReturnsTheSavedQuote() async throws {
        let (controller, _) = try makeController()
        let state = try await controller.save(QuoteID(1), draft: QuoteDraft(text: " New text ", author: "Someone"), baseVersion: 1, by: ada)
        guard case .saved(let quote) = state else { Issue.record("expected saved, got \(state)"); return }
        #expect(quote.text == "New text")
        #expect(quote.version == 2)
        #expect(quote.updatedAt == now)
        #expect(quote.updatedBy == ada)
    }

    @Test func savingAnInvalidDraftKeepsWhatWasTypedWithProblems() async throws {
        let (controller, _) = try makeController()
        let draft = QuoteDraft(text: "", author: "Kept author")
        let state = try await controller.save(QuoteID(1), draft: draft, baseVersion: 1, by: ada)
        #expect(state == .editing(QuoteForm(id: QuoteID(1), draft: draft, version: 1), problems: [.text: .empty]))
    }

    @Test func savingFromAnOldVersionIsAConflictCarryingBothTexts() async throws {
        let (controller, _) = try makeController()
        _ = try await controller.save(QuoteID(1), draft: QuoteDraft(text: "Theirs", author: "T"), baseVersion: 1, by: ada)
        let mine = QuoteDraft(text: "Mine", author: "M")
        let state = try await controller.save(QuoteID(1), draft: mine, baseVersion: 1, by: ada)
        guard case let .conflict(current, form) = state else { Issue.record("expected conflict, got \(state)"); return }
        #expect(current.text == "Theirs")
        #expect(form.draft == mine)
        #expect(form.version == 2)
    }

    @Test func savingAnUnknownQuoteIsNotFound() async throws {
        let (controller, _) = try makeController()
        let state = try await controller.save(QuoteID(5), draft: QuoteDraft(text: "x", author: "y"), baseVersion: 1, by: ada)
        #expect(state == .notFound)
    }
}

/// The favourite and the list, which arrived with accounts.
@Suite struct QuoteControllerAccountsTests {
    let now = Date(timeIntervalSince1970: 5_000)

    func makeController(quotes: Int = 0) async throws -> (QuoteController, Store) {
        let store = try Store(
            journal: try SQLiteJournal(path: ":memory:"),
            seed: [.signUp(Username("ada")!, displayName: "Ada", at: now)],
            logger: .discarding())
        for index in 0..<quotes {
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Quote \(index + 1)", author: "A"), by: UserID(1), at: now))
        }
        let now = self.now
        return (QuoteController(store: store, now: { now }), store)
    }

    @Test func homeShowsTheViewersOwnFavouriteOverTheLatestQuote() async throws {
        let (controller, _) = try await makeController(quotes: 3)
        #expect(try await controller.makeFavourite(QuoteID(1), for: UserID(1)) == .chosen(QuoteID(1)))
        guard case .showing(let mine, _) = controller.home(viewer: UserID(1)) else { Issue.record("not showing"); return }
        #expect(mine?.quote.id == QuoteID(1))
        guard case .showing(let anyones, _) = controller.home(viewer: nil) else { Issue.record("not showing"); return }
        #expect(anyones?.quote.id == QuoteID(3))
    }

    @Test func showSaysWhoAddedItAndWhetherItIsTheViewersFavourite() async throws {
        let (controller, _) = try await makeController(quotes: 1)
        _ = try await controller.makeFavourite(QuoteID(1), for: UserID(1))
        guard case let .showing(_, addedBy, isFavourite, _) = controller.show(QuoteID(1), viewer: UserID(1)) else {
            Issue.record("not showing")
            return
        }
        #expect(addedBy?.displayName == "Ada")
        #expect(isFavourite)
    }

    @Test func favouriteOfAnUnknownQuoteIsNotFound() async throws {
        let (controller, store) = try await makeController(quotes: 1)
        #expect(try await controller.makeFavourite(QuoteID(7), for: UserID(1)) == .notFound)
        #expect(store.state.users[UserID(1)]?.favourite == nil)
    }

    @Test func listPagesTwentyNewestFirst() async throws {
        let (controller, _) = try await makeController(quotes: 45)
        guard case let .showing(first, page, count, search) = controller.list(page: 1) else { Issue.record("no page 1"); return }
        #expect(first.count == 20)
        #expect(first.first?.quote.text == "Quote 45")
        #expect(first.allSatisfy { $0.adder == nil }, "a list shows who added a quote only by their photo: Ada has none")
        #expect(page == 1)
        #expect(count == 3)
        #expect(search == nil)
        guard case let .showing(last, _, _, _) = controller.list(page: 3) else { Issue.record("no page 3"); return }
        #expect(last.map(\.quote.text) == ["Quote 5", "Quote 4", "Quote 3", "Quote 2", "Quote 1"])
        #expect(controller.list(page: 4) == .noSuchPage(pageCount: 3, search: nil))
        #expect(controller.list(page: 0) == .noSuchPage(pageCount: 3, search: nil))
    }

    @Test func listsCarryWhoAddedEachQuoteOnlyWhenTheyHaveAPhoto() async throws {
        let (controller, store) = try await makeController(quotes: 2)
        _ = try await store.dispatch(.signUp(Username("bea")!, displayName: "Bea", at: now))
        _ = try await store.dispatch(.addQuote(QuoteDraft(text: "By Bea", author: "B"), by: UserID(2), at: now))
        let photo = PhotoReference(hash: "aa11", mediaType: "image/webp", small: "bb22")
        _ = try await store.dispatch(.setPhoto(UserID(1), photo, at: now))
        guard case let .showing(listed, _, _, _) = controller.list(page: 1) else { Issue.record("no page 1"); return }
        #expect(listed.map(\.adder?.displayName) == [nil, "Ada", "Ada"], "from the state, Bea has no photo")
        #expect(listed.map(\.adder?.photo) == [nil, photo, photo])
        guard case let .showing(favourite, recent) = controller.home(viewer: UserID(2)) else { Issue.record("no home"); return }
        #expect(favourite?.adder == nil, "Bea's quote is the latest: no photo, no adder")
        #expect(recent.map(\.adder?.displayName) == [nil, "Ada", "Ada"])
        guard case let .showing(_, addedBy, _, _) = controller.show(QuoteID(3), viewer: nil) else { Issue.record("no quote"); return }
        #expect(addedBy?.displayName == "Bea", "a quote's own page names who added it, photo or not")
    }

    @Test func anEmptyBookHasOneEmptyPage() async throws {
        let (controller, _) = try await makeController()
        #expect(controller.list(page: 1) == .showing([], page: 1, pageCount: 1, search: nil))
    }

    @Test func aSearchPagesItsMatchesNewestFirst() async throws {
        let (controller, store) = try await makeController(quotes: 45)
        // Two words, each contained somewhere: "Quote 1", "Quote 10"…"Quote 19", "Quote 21", "Quote 31", "Quote 41".
        let matching = ListedQuotes(store.state.newestQuotes().filter { $0.text.contains("1") }.map { ListedQuote($0) })
        #expect(matching.map(\.quote.id.rawValue) == [41, 31, 21, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1])
        let summary = QuoteSearch(typed: "QUOTE 1", matchCount: 14, isTruncated: false)
        #expect(controller.list(page: 1, search: "QUOTE 1") == .showing(matching, page: 1, pageCount: 1, search: summary))
        #expect(controller.list(page: 2, search: "QUOTE 1") == .noSuchPage(pageCount: 1, search: summary))
        #expect(controller.list(page: 0, search: "QUOTE 1") == .noSuchPage(pageCount: 1, search: summary))
    }

    @Test func aSearchOfManyMatchesHasPagesOfTwenty() async throws {
        let (controller, _) = try await makeController(quotes: 45)
        guard case let .showing(second, page, count, search) = controller.list(page: 2, search: "quote") else { Issue.record("no page 2"); return }
        #expect(second.map(\.quote.text) == (6...25).reversed().map { "Quote \($0)" })
        #expect(page == 2 && count == 3)
        #expect(search == QuoteSearch(typed: "quote", matchCount: 45, isTruncated: false))
    }

    @Test func aSearchWithoutMatchesIsOneEmptyPageAndBlankIsNoSearch() async throws {
        let (controller, _) = try await makeController(quotes: 3)
        #expect(controller.list(page: 1, search: "nowhere") == .showing(
            [], page: 1, pageCount: 1, search: QuoteSearch(typed: "nowhere", matchCount: 0, isTruncated: false)))
        guard case let .showing(all, _, _, search) = controller.list(page: 1, search: "  \t ") else { Issue.record("no page"); return }
        #expect(all.count == 3)
        #expect(search == nil)
    }

    @Test func aSearchOfTooManyWordsSaysSo() async throws {
        let (controller, _) = try await makeController(quotes: 1)
        let typed = (["quote"] + (1...20).map { "q\($0)" }).joined(separator: " ")
        guard case let .showing(_, _, _, search) = controller.list(page: 1, search: typed) else { Issue.record("no page"); return }
        #expect(search?.isTruncated == true)
    }
}

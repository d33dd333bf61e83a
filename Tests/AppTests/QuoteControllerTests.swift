import App
import Foundation
import Logging
import Store
import Testing

/// Each state the quote logic controller can return, on an in-memory database.
@Suite struct QuoteControllerTests {
    let now = Date(timeIntervalSince1970: 5_000)

    func makeController() throws -> (QuoteController, Store) {
        let store = try Store(
            journal: try SQLiteJournal(path: ":memory:"),
            seed: SeedContent.actions(at: Date(timeIntervalSince1970: 1_000)),
            logger: .discarding()
        )
        let now = self.now
        return (QuoteController(store: store, now: { now }), store)
    }

    @Test func homeShowsTheMostRecentlyChangedQuoteAsFavourite() async throws {
        let (controller, store) = try makeController()
        _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Second", author: "B"), by: nil, at: now))
        _ = try await controller.save(QuoteID(1), draft: QuoteDraft(text: "Edited first", author: "A"), baseVersion: 1)
        guard case let .showing(favourite, recent) = controller.home() else { Issue.record("not showing"); return }
        #expect(favourite?.text == "Edited first")
        #expect(recent.map(\.id) == [QuoteID(2), QuoteID(1)])
    }

    @Test func showReturnsTheQuote() throws {
        let (controller, _) = try makeController()
        guard case .showing(let quote) = controller.show(QuoteID(1)) else { Issue.record("not showing"); return }
        #expect(quote.author == SeedContent.einstein.author)
    }

    @Test func showOfAnUnknownQuoteIsNotFound() throws {
        let (controller, _) = try makeController()
        #expect(controller.show(QuoteID(2)) == .notFound)
    }

    @Test func editOfAnUnknownQuoteIsNotFound() throws {
        let (controller, _) = try makeController()
        #expect(controller.edit(QuoteID(99)) == .notFound)
    }

    @Test func anEmptyBookHasNoFavourite() throws {
        let store = try Store(journal: try SQLiteJournal(path: ":memory:"), seed: [], logger: .discarding())
        let controller = QuoteController(store: store, now: { Date(timeIntervalSince1970: 0) })
        #expect(controller.home() == .showing(favourite: nil, recent: []))
    }

    @Test func editStartsFromTheCurrentQuoteWithoutProblems() throws {
        let (controller, store) = try makeController()
        let quote = try #require(store.state.quotes[QuoteID(1)])
        #expect(controller.edit(QuoteID(1)) == .editing(QuoteForm(quote: quote), problems: [:]))
        #expect(controller.edit(QuoteID(9)) == .notFound)
    }

    @Test func savingAValidDraftReturnsTheSavedQuote() async throws {
        let (controller, _) = try makeController()
        let state = try await controller.save(QuoteID(1), draft: QuoteDraft(text: " New text ", author: "Someone"), baseVersion: 1)
        guard case .saved(let quote) = state else { Issue.record("expected saved, got \(state)"); return }
        #expect(quote.text == "New text")
        #expect(quote.version == 2)
        #expect(quote.updatedAt == now)
    }

    @Test func savingAnInvalidDraftKeepsWhatWasTypedWithProblems() async throws {
        let (controller, _) = try makeController()
        let draft = QuoteDraft(text: "", author: "Kept author")
        let state = try await controller.save(QuoteID(1), draft: draft, baseVersion: 1)
        #expect(state == .editing(QuoteForm(id: QuoteID(1), draft: draft, version: 1), problems: [.text: .empty]))
    }

    @Test func savingFromAnOldVersionIsAConflictCarryingBothTexts() async throws {
        let (controller, _) = try makeController()
        _ = try await controller.save(QuoteID(1), draft: QuoteDraft(text: "Theirs", author: "T"), baseVersion: 1)
        let mine = QuoteDraft(text: "Mine", author: "M")
        let state = try await controller.save(QuoteID(1), draft: mine, baseVersion: 1)
        guard case let .conflict(current, form) = state else { Issue.record("expected conflict, got \(state)"); return }
        #expect(current.text == "Theirs")
        #expect(form.draft == mine)
        #expect(form.version == 2)
    }

    @Test func savingAnUnknownQuoteIsNotFound() async throws {
        let (controller, _) = try makeController()
        let state = try await controller.save(QuoteID(5), draft: QuoteDraft(text: "x", author: "y"), baseVersion: 1)
        #expect(state == .notFound)
    }
}

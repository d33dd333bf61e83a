import Foundation
import Store
import TestSupport
import Testing

/// Deleting and restoring quotes, and a quote's history folded from its journal actions.
@Suite struct QuoteBookReducerTests {
    let date = Date(timeIntervalSince1970: 1_000)
    let ada = UserID(1)
    let bob = UserID(2)

    func book() throws -> AppState {
        var state = AppState()
        for name in ["ada", "bob"] {
            _ = try AppReducer.reduce(
                &state, .signUp(try #require(Username(name)), displayName: name, at: date))
        }
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "One", author: "A"), by: ada, at: date))
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "Two", author: "B"), by: bob, at: date))
        return state
    }

    @Test func onlyThePersonWhoAddedAQuoteMayDeleteIt() throws {
        var state = try book()
        let before = state
        #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, .deleteQuote(QuoteID(1), by: bob, at: date)) }
        #expect(state == before)
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(9))) {
            try AppReducer.reduce(&state, .deleteQuote(QuoteID(9), by: ada, at: date))
        }
        #expect(try AppReducer.reduce(&state, .deleteQuote(QuoteID(1), by: ada, at: date)) == .quoteDeleted(QuoteID(1)))
        #expect(state.quotes[QuoteID(1)] == nil)
        #expect(state.newestQuotes().map(\.text) == ["Two"])
    }

    @Test func theSeedQuoteAddedByNoOneCannotBeDeleted() throws {
        var state = AppState()
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "Seed", author: "A"), by: nil, at: date))
        #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, .deleteQuote(QuoteID(1), by: ada, at: date)) }
    }

    @Test func deletingClearsFavouritesAndTheLastChangedQuote() throws {
        var state = try book()
        _ = try AppReducer.reduce(&state, .setFavourite(ada, QuoteID(2), at: date))
        _ = try AppReducer.reduce(&state, .setFavourite(bob, QuoteID(2), at: date))
        _ = try AppReducer.reduce(&state, .setFavourite(bob, QuoteID(1), at: date))
        #expect(state.lastChangedQuote == QuoteID(2))
        _ = try AppReducer.reduce(&state, .deleteQuote(QuoteID(2), by: bob, at: date))
        #expect(state.users[ada]?.favourite == nil)
        #expect(state.users[bob]?.favourite == QuoteID(1))
        #expect(state.lastChangedQuote == QuoteID(1))
    }

    @Test func restoringMakesAnOlderVersionCurrentAsANewVersion() throws {
        var state = try book()
        _ = try AppReducer.reduce(&state, .editQuote(QuoteID(1), QuoteDraft(text: "Uno", author: "A"), baseVersion: 1, by: bob, at: date))
        let event = try AppReducer.reduce(
            &state, .restoreQuote(QuoteID(1), QuoteDraft(text: "One", author: "A"), fromVersion: 1, by: bob, at: date))
        #expect(event == .quoteRestored(QuoteID(1), version: 3))
        #expect(state.quotes[QuoteID(1)]?.text == "One")
        #expect(state.quotes[QuoteID(1)]?.updatedBy == bob)
    }

    @Test(arguments: [0, 2, 3])
    func restoringTheCurrentOrAnUnknownVersionIsRefused(version: Int) throws {
        var state = try book()
        _ = try AppReducer.reduce(&state, .editQuote(QuoteID(1), QuoteDraft(text: "Uno", author: "A"), baseVersion: 1, by: bob, at: date))
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(1))) {
            try AppReducer.reduce(&state, .restoreQuote(QuoteID(1), QuoteDraft(text: "x", author: "y"), fromVersion: version, by: bob, at: date))
        }
    }

    @Test func historyNumbersVersionsAsTheReducerDoes() throws {
        let later = date.addingTimeInterval(60)
        let actions: [AppAction] = [
            .addQuote(QuoteDraft(text: " One ", author: "A"), by: ada, at: date),
            .editQuote(QuoteID(1), QuoteDraft(text: "Uno", author: "A"), baseVersion: 1, by: bob, at: later),
            .restoreQuote(QuoteID(1), QuoteDraft(text: "One", author: "A"), fromVersion: 1, by: ada, at: later),
        ]
        var state = AppState()
        for action in actions { _ = try AppReducer.reduce(&state, action) }
        let history = QuoteVersion.history(from: actions)
        #expect(history.map(\.version) == [1, 2, 3])
        #expect(history.map(\.text) == ["One", "Uno", "One"])
        #expect(history.map(\.editedBy) == [ada, bob, ada])
        #expect(history.map(\.restoredFrom) == [nil, nil, 1])
        #expect(history.last?.version == state.quotes[QuoteID(1)]?.version)
        #expect(QuoteVersion.history(from: actions + [.deleteQuote(QuoteID(1), by: ada, at: later)]).isEmpty)
    }

    @Test func applyingARecordedActionDoesNotValidateIt() {
        // Recorded under a looser rule: too long today, yet replay must apply it as it was.
        var state = AppState()
        let long = String(repeating: "a", count: QuoteDraft.maximumTextLength + 1)
        #expect(AppReducer.apply(.addQuote(QuoteDraft(text: long, author: "A"), by: nil, at: date), to: &state) == .quoteAdded(QuoteID(1)))
        #expect(state.quotes[QuoteID(1)]?.text == long)
        // A fact that no longer fits changes nothing instead of stopping the replay.
        let before = state
        _ = AppReducer.apply(.editQuote(QuoteID(7), QuoteDraft(text: "x", author: "y"), baseVersion: 1, by: nil, at: date), to: &state)
        #expect(state == before)
    }

    @Test func aQuoteIsCappedInBytesAsWellAsCharacters() {
        // One letter carrying 150,000 combining marks is a single character.
        let heavy = "a" + String(repeating: "\u{301}", count: 150_000)
        #expect(heavy.count == 1)
        #expect(QuoteDraft(text: heavy, author: "A").problems == [.text: .tooLarge(maximumBytes: QuoteDraft.maximumTextBytes)])
        #expect(QuoteDraft(text: "A", author: heavy).problems == [.author: .tooLarge(maximumBytes: QuoteDraft.maximumAuthorBytes)])
        // As many of the longest emoji Unicode recommends as SPEC allows characters.
        for emoji in ["👨‍👩‍👧", "👨‍👩‍👧‍👦", "👨🏻‍❤️‍💋‍👨🏼", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"] {
            #expect(emoji.count == 1)
            let draft = QuoteDraft(text: String(repeating: emoji, count: 1_000), author: String(repeating: emoji, count: 100))
            #expect(draft.problems.isEmpty, "\(emoji)")
            #expect(QuoteDraft(text: String(repeating: emoji, count: 1_001), author: "A").problems == [.text: .tooLong(maximum: 1_000)])
        }
    }
}

import Foundation
import Store
import TestSupport
import Testing

@Suite struct AppReducerTests {
    let date = Date(timeIntervalSince1970: 1_000)
    let later = Date(timeIntervalSince1970: 2_000)

    func stateWithOneQuote() throws -> AppState {
        var state = AppState()
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "Hello", author: "Ada"), by: nil, at: date))
        return state
    }

    @Test func addingAQuoteAssignsIncreasingIdsAndVersionOne() throws {
        var state = AppState()
        let first = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "One", author: "A"), by: nil, at: date))
        let second = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "Two", author: "B"), by: nil, at: later))
        #expect(first == .quoteAdded(QuoteID(1)))
        #expect(second == .quoteAdded(QuoteID(2)))
        #expect(state.quotes[QuoteID(2)]?.version == 1)
        #expect(state.newestQuotes().map(\.text) == ["Two", "One"])
        #expect(state.lastChangedQuote == QuoteID(2))
    }

    @Test func addingTrimsWhitespace() throws {
        var state = AppState()
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "  Spaced \n", author: "\tAda "), by: nil, at: date))
        #expect(state.quotes[QuoteID(1)]?.text == "Spaced")
        #expect(state.quotes[QuoteID(1)]?.author == "Ada")
    }

    @Test func editingAtTheCurrentVersionReplacesTheText() throws {
        var state = try stateWithOneQuote()
        let event = try AppReducer.reduce(
            &state, .editQuote(QuoteID(1), QuoteDraft(text: "Bye", author: "Bob"), baseVersion: 1, by: nil, at: later))
        #expect(event == .quoteEdited(QuoteID(1), version: 2))
        let quote = try #require(state.quotes[QuoteID(1)])
        #expect(quote.text == "Bye")
        #expect(quote.author == "Bob")
        #expect(quote.updatedAt == later)
        #expect(quote.addedAt == date)
    }

    @Test func editingFromAStaleVersionIsRejectedAndChangesNothing() throws {
        var state = try stateWithOneQuote()
        _ = try AppReducer.reduce(
            &state, .editQuote(QuoteID(1), QuoteDraft(text: "Second", author: "Ada"), baseVersion: 1, by: nil, at: later))
        let before = state
        #expect(throws: ActionRejection.staleVersion(current: before.quotes[QuoteID(1)]!)) {
            try AppReducer.reduce(
                &state, .editQuote(QuoteID(1), QuoteDraft(text: "Third", author: "Ada"), baseVersion: 1, by: nil, at: later))
        }
        #expect(state == before)
    }

    @Test func editingAnUnknownQuoteIsRejected() throws {
        var state = try stateWithOneQuote()
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(9))) {
            try AppReducer.reduce(&state, .editQuote(QuoteID(9), QuoteDraft(text: "x", author: "y"), baseVersion: 1, by: nil, at: later))
        }
    }

    @Test(arguments: [
        (QuoteDraft(text: "   ", author: "Ada"), [QuoteField.text: FieldProblem.empty]),
        (QuoteDraft(text: "Fine", author: ""), [.author: .empty]),
        (QuoteDraft(text: String(repeating: "a", count: 1001), author: "Ada"), [.text: .tooLong(maximum: 1000)]),
        (QuoteDraft(text: "Fine", author: String(repeating: "é", count: 101)), [.author: .tooLong(maximum: 100)]),
    ])
    func invalidDraftsAreRejectedWithTheirProblems(draft: QuoteDraft, problems: [QuoteField: FieldProblem]) throws {
        var state = try stateWithOneQuote()
        let before = state
        #expect(throws: ActionRejection.invalidQuote(problems)) {
            try AppReducer.reduce(&state, .editQuote(QuoteID(1), draft, baseVersion: 1, by: nil, at: later))
        }
        #expect(state == before)
    }

    @Test func limitsCountCharactersNotBytes() {
        let text = String(repeating: "👍", count: 1000)
        #expect(QuoteDraft(text: text, author: "Ada").problems.isEmpty)
    }
}

/// The trim rule of quote fields is Foundation's `whitespacesAndNewlines`, computed natively.
@Suite struct TrimmingTests {
    @Test(arguments: [
        "", " ", "plain", "  both  ", "\t\n tabs and newlines \r\n", "\u{00A0}no-break\u{00A0}", "\u{2003}em\u{3000}",
        "\u{2028}line separators\u{2029}", "\u{85}next line\u{85}", "inner  spaces stay", "\u{200B}zero width is not space\u{200B}",
        " e\u{301} ", "\u{1F600} emoji \u{1F600}", "\u{FEFF}bom\u{FEFF}", "\u{180E}mongolian\u{180E}",
    ])
    func matchesFoundation(_ value: String) {
        #expect(QuoteDraft.trimmingWhitespace(value) == value.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func matchesFoundationOnEveryBMPScalarAtTheEdges() {
        for code in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(code) else { continue }
            let value = "\(Character(scalar))x\(Character(scalar))"
            #expect(QuoteDraft.trimmingWhitespace(value) == value.trimmingCharacters(in: .whitespacesAndNewlines), "U+\(String(code, radix: 16))")
        }
    }
}

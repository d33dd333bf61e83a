import Foundation
import Store
import Testing

/// The one rule for characters typed into any field (``TypedText``), and the fields that use it.
@Suite struct TypedTextTests {
    /// Scalar, refused in a single-line field, refused in a multi-line one.
    static let scalars: [(UInt32, Bool, Bool)] = [
        (0x00, true, true), (0x01, true, true), (0x08, true, true), (0x0B, true, true), (0x0C, true, true),
        (0x1B, true, true), (0x1F, true, true), (0x7F, true, true), (0x80, true, true), (0x85, true, true),
        (0x9F, true, true),
        (0x09, true, false), (0x0A, true, false), (0x0D, true, false),
        (0x202A, true, true), (0x202B, true, true), (0x202C, true, true), (0x202D, true, true), (0x202E, true, true),
        (0x2066, true, true), (0x2067, true, true), (0x2068, true, true), (0x2069, true, true),
        // Allowed: printable neighbours of the refused ranges, and the directional marks.
        (0x20, false, false), (0x7E, false, false), (0xA0, false, false), (0xE9, false, false), (0x2029, false, false),
        (0x202F, false, false), (0x2065, false, false), (0x206A, false, false), (0x200E, false, false),
        (0x200F, false, false), (0x061C, false, false), (0x1F389, false, false),
    ]

    @Test(arguments: scalars)
    func refusesControlsAndBidirectionalControls(value: UInt32, singleLine: Bool, multiline: Bool) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(TypedText.isForbidden(scalar, in: .singleLine) == singleLine)
        #expect(TypedText.isForbidden(scalar, in: .multiline) == multiline)
        let text = "ab" + String(Character(scalar)) + "cd"
        #expect(TypedText.firstForbiddenScalar(in: text, layout: .singleLine) == (singleLine ? scalar : nil))
    }

    @Test func findsTheFirstRefusedScalar() {
        #expect(TypedText.firstForbiddenScalar(in: "a\u{202E}b\u{0}", layout: .singleLine) == "\u{202E}")
        #expect(TypedText.firstForbiddenScalar(in: "", layout: .singleLine) == nil)
    }

    @Test func removingKeepsEverythingElseInOrder() {
        #expect(TypedText.removingForbiddenScalars(from: "é\u{0}t\u{202E}é\t!", layout: .multiline) == "été\t!")
        #expect(TypedText.removingForbiddenScalars(from: "é\u{0}t\u{202E}é\t!", layout: .singleLine) == "été!")
    }

    @Test(arguments: [
        (QuoteDraft(text: "Fine\u{0}", author: "Ada"), [QuoteField.text: FieldProblem.forbiddenCharacter("\u{0}")]),
        (QuoteDraft(text: "Fine", author: "Ada\u{202E}"), [.author: .forbiddenCharacter("\u{202E}")]),
        (QuoteDraft(text: "Fine", author: "Ada\tLovelace"), [.author: .forbiddenCharacter("\t")]),
        (
            QuoteDraft(text: "Fi\u{7F}ne", author: "A\u{2066}da"),
            [.text: .forbiddenCharacter("\u{7F}"), .author: .forbiddenCharacter("\u{2066}")]
        ),
    ])
    func quoteDraftsWithRefusedCharactersHaveProblems(draft: QuoteDraft, problems: [QuoteField: FieldProblem]) {
        #expect(draft.problems == problems)
    }

    @Test func aQuoteTextMayHoldTabsAndLineBreaks() {
        #expect(QuoteDraft(text: "First line\r\n\tsecond line\nthird", author: "Ada").problems.isEmpty)
    }

    @Test func displayNamesRefuseTheSameCharacters() {
        #expect(User.problem(withDisplayName: "Ada\u{0}") == .forbiddenCharacter("\u{0}"))
        #expect(User.problem(withDisplayName: "\u{202E}adA") == .forbiddenCharacter("\u{202E}"))
        #expect(User.problem(withDisplayName: "Ada\nLovelace") == .forbiddenCharacter("\n"))
        // Surrounding whitespace is trimmed before the check, as it is before storing.
        #expect(User.problem(withDisplayName: "\tAda Lovelace\n") == nil)
        #expect(User.problem(withDisplayName: "\u{5D3}\u{5D5}\u{200F} 2") == nil)
    }

    @Test func theReducerRefusesAndStoresNothing() {
        var state = AppState()
        #expect(throws: ActionRejection.invalidQuote([.author: .forbiddenCharacter("\u{85}")])) {
            try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "Fine", author: "A\u{85}da"), by: nil, at: .distantPast))
        }
        #expect(state == AppState())
    }
}

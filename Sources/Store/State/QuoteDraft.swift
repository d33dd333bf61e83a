import Foundation

/// The text and author a person typed, before or after validation.
package struct QuoteDraft: Codable, Sendable, Equatable {
    package var text: String
    package var author: String

    package init(text: String, author: String) {
        self.text = text
        self.author = author
    }

    /// Longest text in characters, after trimming (SPEC.md "Rules and answers").
    package static let maximumTextLength = 1000
    /// Longest author in characters, after trimming.
    package static let maximumAuthorLength = 100

    /// The draft with surrounding whitespace removed, as it is stored.
    package var trimmed: QuoteDraft {
        QuoteDraft(
            text: text.trimmingCharacters(in: .whitespacesAndNewlines),
            author: author.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    /// What is wrong with each field, empty when the draft may be stored. Checks the trimmed draft.
    package var problems: [QuoteField: FieldProblem] {
        let draft = trimmed
        var problems: [QuoteField: FieldProblem] = [:]
        problems[.text] = FieldProblem.check(draft.text, maximum: Self.maximumTextLength)
        problems[.author] = FieldProblem.check(draft.author, maximum: Self.maximumAuthorLength)
        return problems
    }
}

/// The fields of a quote form.
package enum QuoteField: String, Sendable, Hashable, CaseIterable {
    case text
    case author
}

/// Why a text field was refused.
package enum FieldProblem: Sendable, Equatable {
    case empty
    case tooLong(maximum: Int)

    static func check(_ value: String, maximum: Int) -> FieldProblem? {
        if value.isEmpty { return .empty }
        if value.count > maximum { return .tooLong(maximum: maximum) }
        return nil
    }
}

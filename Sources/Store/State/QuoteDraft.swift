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
        QuoteDraft(text: Self.trimmingWhitespace(text), author: Self.trimmingWhitespace(author))
    }

    /// `value` without leading and trailing whitespace: exactly the scalars of Foundation's
    /// `CharacterSet.whitespacesAndNewlines` (Unicode `White_Space` plus U+200B ZERO WIDTH SPACE;
    /// a test checks every BMP scalar), without its cost of about 38,000 instructions a call,
    /// which was most of a journal replay's time. Replay re-runs this on recorded actions, so it
    /// must never trim differently from what was recorded.
    package static func trimmingWhitespace(_ value: String) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace || $0 == "\u{200B}" }
        let scalars = value.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return value }
        return String(scalars[first...last])
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

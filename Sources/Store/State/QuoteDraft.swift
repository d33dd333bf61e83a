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
    /// Largest text in UTF-8 bytes (``FieldProblem/bytesPerCharacter``).
    package static let maximumTextBytes = FieldProblem.bytesPerCharacter * maximumTextLength
    /// Largest author in UTF-8 bytes.
    package static let maximumAuthorBytes = FieldProblem.bytesPerCharacter * maximumAuthorLength

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
        problems[.text] = FieldProblem.check(
            draft.text, layout: .multiline, maximum: Self.maximumTextLength)
        problems[.author] = FieldProblem.check(
            draft.author, layout: .singleLine, maximum: Self.maximumAuthorLength)
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
    /// Within the character limit but too many bytes (characters piled with combining marks).
    case tooLarge(maximumBytes: Int)
    /// Holds a character no typed text may (``TypedText``): the first one found.
    case forbiddenCharacter(Unicode.Scalar)

    /// UTF-8 bytes a field's character may take on average, at most. A character has no size
    /// limit of its own (one letter with 150,000 combining marks is one character), so a field
    /// of at most N characters is capped at 40 N bytes as well: room for a whole field of the
    /// longest emoji Unicode recommends (a kiss with two skin tones, 35 bytes; a family of four
    /// is 25). At 16 a character, 1,000 families of three, which SPEC's 1,000 characters allow,
    /// were refused.
    package static let bytesPerCharacter = 40

    /// The problem with `value`, a field laid out as `layout` of at most `maximum` characters
    /// (and ``bytesPerCharacter`` times as many bytes), checking bytes first so that counting
    /// characters (which walks grapheme clusters) never runs over an oversized value.
    static func check(_ value: String, layout: TypedText.Layout, maximum: Int) -> FieldProblem? {
        let maximumBytes = maximum * bytesPerCharacter
        if value.isEmpty { return .empty }
        if let scalar = TypedText.firstForbiddenScalar(in: value, layout: layout) { return .forbiddenCharacter(scalar) }
        let bytes = value.utf8.count
        if bytes > maximumBytes {
            // Too many characters is the likelier and more useful thing to say.
            return value.unicodeScalars.count > maximum && value.count > maximum
                ? .tooLong(maximum: maximum) : .tooLarge(maximumBytes: maximumBytes)
        }
        if bytes > maximum, value.count > maximum { return .tooLong(maximum: maximum) }
        return nil
    }
}

/// The one rule for which characters any field a person types may hold (SPEC.md "Rules and
/// answers": NUL, other control characters and bidirectional overrides are refused in every
/// field). Quote text and author, display names, usernames and passwords all ask it; a search
/// drops what it refuses instead.
///
/// Refused everywhere:
/// - the C0 controls U+0000–U+001F (NUL included: C strings, `crypt` and PostgreSQL text cannot
///   hold it), DEL U+007F and the C1 controls U+0080–U+009F: invisible, and not valid in HTML;
/// - the bidirectional embeddings and overrides U+202A–U+202E and isolates U+2066–U+2069: each
///   reorders everything after it to the end of its paragraph, so a name or a quote holding
///   U+202E can make the rest of the line read backwards.
///
/// A multi-line field (a quote's text) may hold line breaks (LF, CR) and tabs.
///
/// Allowed on purpose: the directional marks U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT
/// MARK and U+061C ARABIC LETTER MARK. They are ordinary characters of right-to-left writing (a
/// Hebrew or Arabic name beside digits or Latin letters needs them); each is a single strong
/// character with no scope, so it can change how the punctuation and digits beside it are
/// ordered, but never reverse a run of letters or reach past its own text.
///
/// The rule is checked when a change is dispatched, never at replay (``AppReducer``), so text
/// stored before it was tightened still loads.
package enum TypedText {
    /// What a field may hold besides ordinary characters.
    package enum Layout: Sendable {
        /// One line: no tabs or line breaks (names, authors, usernames, passwords).
        case singleLine
        /// Several lines: tabs, LF and CR allowed (a quote's text).
        case multiline
    }

    /// The first scalar of `text` that a field laid out as `layout` may not hold; nil when all
    /// may.
    package static func firstForbiddenScalar(in text: String, layout: Layout) -> Unicode.Scalar? {
        text.unicodeScalars.first { isForbidden($0, in: layout) }
    }

    /// Whether a field laid out as `layout` refuses `scalar`.
    package static func isForbidden(_ scalar: Unicode.Scalar, in layout: Layout) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: layout == .singleLine
        case 0x00...0x1F, 0x7F...0x9F: true
        default: isBidirectionalControl(scalar)
        }
    }

    /// Whether `scalar` is one of the bidirectional embeddings, overrides or isolates refused
    /// (not a directional mark).
    package static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` without the scalars a field laid out as `layout` refuses: for what is typed but
    /// never stored (a search), where ignoring them serves the person better than an error.
    package static func removingForbiddenScalars(from text: String, layout: Layout) -> String {
        guard firstForbiddenScalar(in: text, layout: layout) != nil else { return text }
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !isForbidden(scalar, in: layout) { kept.append(scalar) }
        return String(kept)
    }
}

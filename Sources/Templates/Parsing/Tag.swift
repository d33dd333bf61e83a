/// One Mustache tag found by ``Lexer``: its kind, where it sits in the template's UTF-8 bytes,
/// and its trimmed content. Text is not a token: it is whatever lies between tags.
struct Tag {
    /// The tag's role, from its sigil (Mustache spec: interpolation, sections, inverted, comments,
    /// partials, delimiters; `~inheritance` parents and blocks).
    enum Kind: Equatable {
        /// `{{name}}`: HTML-escaped interpolation.
        case escaped
        /// `{{{name}}}` or `{{&name}}`: interpolation without escaping.
        case raw
        /// `{{#name}}`.
        case section
        /// `{{^name}}`.
        case inverted
        /// `{{/name}}`.
        case close
        /// `{{! text}}`.
        case comment
        /// `{{>name}}` or `{{>*name}}`.
        case partial
        /// `{{<name}}` or `{{<*name}}`.
        case parent
        /// `{{$name}}`.
        case block
        /// `{{=<% %>=}}`.
        case setDelimiters

        /// Whether the tag may stand alone on a line and take the line with it.
        var canStandAlone: Bool {
            switch self {
            case .escaped, .raw: false
            case .section, .inverted, .close, .comment, .partial, .parent, .block, .setDelimiters: true
            }
        }

        /// Whether the tag opens a region that a `{{/name}}` closes.
        var opensRegion: Bool {
            switch self {
            case .section, .inverted, .parent, .block: true
            case .escaped, .raw, .close, .comment, .partial, .setDelimiters: false
            }
        }
    }

    /// The tag's role.
    var kind: Kind
    /// Byte offset of the opening delimiter.
    var start: Int
    /// Byte offset just after the closing delimiter.
    var end: Int
    /// The content between sigil and closing delimiter, without surrounding whitespace.
    var content: String
    /// Byte offset where the content starts, for error positions.
    var contentStart: Int
    /// How this tag's closing tag is spelled with the delimiters in force, for messages.
    var expectedClose: String
}

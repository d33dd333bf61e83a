/// What someone searched for, as the index matches it: the distinct folded words of the typed
/// text (split at spaces after folding, so any whitespace separates words).
///
/// A quote matches when its folded text or author contains every word, in any order
/// (``QuoteSearchIndex/matches(_:)``).
package struct SearchQuery: Sendable, Equatable {
    /// At most this many words are searched for; a person never types more, and each word is
    /// one more byte search per candidate quote, so the cap bounds what one request can cost.
    package static let maximumWords = 16

    /// The folded words, longest first (a longer word is usually rarer, so it picks the fewest
    /// candidates to check the others against), without repeats.
    package let words: [[UInt8]]
    /// Whether the typed text had more than ``maximumWords`` distinct words (the rest are ignored).
    package let isTruncated: Bool

    package init(_ typed: String) {
        var distinct: [[UInt8]] = []
        for word in SearchFolding.fold(typed).split(separator: SearchFolding.space)
        where !distinct.contains(where: { $0.elementsEqual(word) }) {
            distinct.append(Array(word))
            if distinct.count > Self.maximumWords { break }
        }
        isTruncated = distinct.count > Self.maximumWords
        // Stable: equal lengths keep the order they were typed in.
        words = Array(distinct.prefix(Self.maximumWords)).enumerated()
            .sorted { ($0.element.count, $1.offset) > ($1.element.count, $0.offset) }
            .map(\.element)
    }

    /// True when nothing searchable was typed (only spaces, or only marks): no search at all.
    package var isEmpty: Bool { words.isEmpty }
}

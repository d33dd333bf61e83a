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
        let folded = SearchFolding.fold(typed)
        var words: [[UInt8]] = []
        // Room for every word at once (counted first: a query is a few bytes), so inserting them
        // in order never regrows the array.
        var runs = 0
        for index in folded.indices where folded[index] != SearchFolding.space {
            if index == 0 || folded[index - 1] == SearchFolding.space { runs += 1 }
        }
        words.reserveCapacity(min(runs, Self.maximumWords))
        var isTruncated = false
        var start = 0
        // One pass over the folded bytes: each run between spaces is a word, put in its place at
        // once, stably: after every word at least as long, so equal lengths keep typed order.
        while start < folded.count {
            guard folded[start] != SearchFolding.space else {
                start += 1
                continue
            }
            var end = start + 1
            while end < folded.count, folded[end] != SearchFolding.space { end += 1 }
            let word = folded[start..<end]
            start = end
            if words.contains(where: { $0.elementsEqual(word) }) { continue }
            guard words.count < Self.maximumWords else {
                isTruncated = true
                break
            }
            words.insert(Array(word), at: words.firstIndex { $0.count < word.count } ?? words.endIndex)
        }
        self.isTruncated = isTruncated
        self.words = words
    }

    /// True when nothing searchable was typed (only spaces, or only marks): no search at all.
    package var isEmpty: Bool { words.isEmpty }
}

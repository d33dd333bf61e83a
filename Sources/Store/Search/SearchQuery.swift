/// What someone searched for, as the index matches it: the distinct folded words of the typed
/// text (split at spaces after folding, so any whitespace separates words).
///
/// A quote matches when its folded text or author contains every word, in any order
/// (``QuoteSearchIndex/matches(_:)``).
///
/// Held as one byte run, ``normalized``: the words in the order they are searched for, joined by
/// one space (a folded word never holds one). A search reads the words in place from it, and a
/// kept search is found by it; a one-word query is the folded text itself, with no copy.
package struct SearchQuery: Sendable, Equatable {
    /// At most this many words are searched for; a person never types more, and each word is
    /// one more byte search per candidate quote, so the cap bounds what one request can cost.
    package static let maximumWords = 16

    /// The folded words, longest first (a longer word is usually rarer, so it picks the fewest
    /// candidates to check the others against), without repeats, joined by single spaces.
    package let normalized: [UInt8]
    /// Whether the typed text had more than ``maximumWords`` distinct words (the rest are ignored).
    package let isTruncated: Bool

    package init(_ typed: String) {
        let folded = SearchFolding.fold(typed)
        var isTruncated = false
        normalized = folded.withUnsafeBufferPointer { bytes in
            // The words as ranges of the folded bytes, at most 16 of 16 bytes each: on the stack.
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.maximumWords) { words -> [UInt8] in
                var count = 0
                var start = 0
                // One pass over the folded bytes: each run between spaces is a word, put in its
                // place at once, stably: after every word at least as long, so equal lengths
                // keep typed order.
                while start < bytes.count {
                    guard bytes[start] != SearchFolding.space else {
                        start += 1
                        continue
                    }
                    var end = start + 1
                    while end < bytes.count, bytes[end] != SearchFolding.space { end += 1 }
                    let word = start..<end
                    start = end
                    if words[..<count].contains(where: { bytes[$0].elementsEqual(bytes[word]) }) { continue }
                    guard count < Self.maximumWords else {
                        isTruncated = true
                        break
                    }
                    var place = count
                    while place > 0, words[place - 1].count < word.count {
                        words[place] = words[place - 1]
                        place -= 1
                    }
                    words[place] = word
                    count += 1
                }
                return Self.joined(words[..<count], of: bytes, or: folded)
            }
        }
        self.isTruncated = isTruncated
    }

    /// `words` (ranges of `bytes`) joined by single spaces: `folded` itself (the array `bytes`
    /// reads) when that is what it already holds, as a typed query of one word usually does.
    private static func joined(
        _ words: Slice<UnsafeMutableBufferPointer<Range<Int>>>, of bytes: UnsafeBufferPointer<UInt8>, or folded: [UInt8]
    ) -> [UInt8] {
        guard !words.isEmpty else { return [] }
        var expected = 0
        var isFolded = true
        for word in words {
            if word.lowerBound != expected { isFolded = false }
            expected = word.upperBound + 1
        }
        if isFolded && expected - 1 == bytes.count { return folded }
        let total = words.reduce(words.count - 1) { $0 + $1.count }
        return [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
            var at = 0
            for word in words {
                if at > 0 {
                    output[at] = SearchFolding.space
                    at += 1
                }
                _ = UnsafeMutableBufferPointer(rebasing: output[at..<at + word.count]).initialize(from: bytes[word])
                at += word.count
            }
            initialized = at
        }
    }

    /// Calls `body` with each word, in order, read in place from ``normalized``.
    package func forEachWord(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        normalized.withUnsafeBufferPointer { Self.forEachWord(of: $0, body) }
    }

    /// Calls `body` with each word of `normalized` (a query's ``normalized`` bytes), in order: for
    /// a caller that keeps the words while it holds those bytes.
    package static func forEachWord(of normalized: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        while start < normalized.count {
            var end = start
            while end < normalized.count, normalized[end] != SearchFolding.space { end += 1 }
            body(UnsafeBufferPointer(rebasing: normalized[start..<end]))
            start = end + 1
        }
    }

    /// The words as arrays, in order (for tests and reports; a search reads them in place).
    package var words: [[UInt8]] {
        var words: [[UInt8]] = []
        forEachWord { words.append(Array($0)) }
        return words
    }

    /// How many words ``normalized`` holds: one more than its spaces.
    package var wordCount: Int {
        normalized.isEmpty ? 0 : normalized.reduce(1) { $1 == SearchFolding.space ? $0 + 1 : $0 }
    }

    /// True when nothing searchable was typed (only spaces, or only marks): no search at all.
    package var isEmpty: Bool { normalized.isEmpty }
}

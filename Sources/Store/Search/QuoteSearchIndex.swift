/// Every quote's search key (``SearchFolding/key(text:author:)``), kept beside the state so a
/// search never folds the book: it folds the query once and runs a byte search over the keys.
///
/// Layout: keys sit back to back in chunks of ``slotsPerChunk`` consecutive quote ids, each key
/// followed by a 0 byte (which no key and no query word contains, so a match never spans two
/// quotes). A chunk's `ends[slot]` is the offset just past its slot's key; a slot of a quote that
/// does not exist is empty. A search runs `memmem` over whole chunks, newest first, and maps each
/// hit to its slot by binary search; the other words are checked only inside that slot.
///
/// Costs: a write replaces one slot, moving at most one chunk's bytes (32 KB on average in the
/// scale benchmark); a copy of the state shares every chunk until one is written. A search reads every key once for its
/// longest word: 12.5 MB for the 100,000 quotes of the scale benchmark. A value, changed only by the reducer;
/// equal indexes hold equal keys (trailing empty chunks are dropped).
///
/// What a search finds is kept for this version of the keys (``QuoteSearchResults``): a change to
/// any chunk gives the index a new, empty set of results, so a repeated search between writes
/// costs a look-up and never sees keys other than the ones it was found in.
package struct QuoteSearchIndex: Sendable, Equatable {
    /// Quote ids per chunk: small enough that rewriting one is cheap, large enough that a search
    /// makes few calls.
    static let slotsPerChunk = 256

    /// Keys of quote ids `index * slotsPerChunk + 1` onwards.
    struct Chunk: Sendable, Equatable {
        var bytes: [UInt8] = []
        var ends = [UInt32](repeating: 0, count: QuoteSearchIndex.slotsPerChunk)

        func range(of slot: Int) -> Range<Int> {
            (slot == 0 ? 0 : Int(ends[slot - 1]))..<Int(ends[slot])
        }

        /// The slot whose key holds byte `offset`: the first whose end lies past it.
        func slot(containing offset: Int) -> Int {
            var low = 0
            var high = ends.count - 1
            while low < high {
                let middle = (low + high) / 2
                if Int(ends[middle]) > offset { high = middle } else { low = middle + 1 }
            }
            return low
        }

        /// Puts `key` (with its terminator; empty to clear) in `slot`, shifting the later slots.
        mutating func replace(slot: Int, with key: [UInt8]) {
            let old = range(of: slot)
            bytes.replaceSubrange(old, with: key)
            let delta = key.count - old.count
            guard delta != 0 else { return }
            for later in slot..<ends.count { ends[later] = UInt32(Int(ends[later]) + delta) }
        }
    }

    var chunks: [Chunk] = [] {
        didSet { results = QuoteSearchResults() }
    }

    /// What searches found in these chunks; replaced whenever they change.
    private(set) var results = QuoteSearchResults()

    package init() {}

    /// Equal keys: the results kept beside them are a cache and do not count.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.chunks == rhs.chunks
    }

    /// Indexes quote `id` under its current text and author, replacing what it had.
    package mutating func update(_ id: QuoteID, text: String, author: String) {
        var key = SearchFolding.key(text: text, author: author)
        key.append(0)
        guard let (chunk, slot) = Self.position(of: id) else { return }
        while chunks.count <= chunk { chunks.append(Chunk()) }
        chunks[chunk].replace(slot: slot, with: key)
    }

    /// Forgets quote `id`.
    package mutating func remove(_ id: QuoteID) {
        guard let (chunk, slot) = Self.position(of: id), chunk < chunks.count else { return }
        chunks[chunk].replace(slot: slot, with: [])
        while chunks.last?.bytes.isEmpty == true { chunks.removeLast() }
    }

    /// The bytes of every key, terminators included: what a search reads.
    package var byteCount: Int {
        chunks.reduce(0) { $0 + $1.bytes.count }
    }

    /// Quote `id`'s key without its terminator, or nil when it is not indexed.
    package func key(of id: QuoteID) -> [UInt8]? {
        guard let (chunk, slot) = Self.position(of: id), chunk < chunks.count else { return nil }
        let range = chunks[chunk].range(of: slot)
        guard !range.isEmpty else { return nil }
        return Array(chunks[chunk].bytes[range.dropLast()])
    }

    /// The ids of every quote whose key contains every word of `query`, newest first (highest id
    /// first: ids are given in the order quotes are added). Every quote when the query is empty.
    /// A search already made in this version of the index is answered from ``results``.
    package func matches(_ query: SearchQuery) -> [QuoteID] {
        if let kept = results.matches(for: query.words) { return kept }
        let found = search(query)
        results.remember(found, for: query.words)
        return found
    }

    /// Up to this many bytes of keys, a byte search is quick enough for any thread, an event
    /// loop included: about 2,000 quotes, at most about 0.2 ms even for a word most quotes contain
    /// (Benchmarks/search-results). A search of a larger index takes milliseconds (2 to 10 at
    /// 100,000 quotes), so its caller runs it where waiting holds nobody else up.
    package static let quickSearchBytes = 256 * 1024

    /// What ``matches(_:)`` answers, when that is quick: a kept result, or a search of an index
    /// of at most ``quickSearchBytes`` (then kept like any other). Nil when it would be a byte
    /// search of a larger index, which ``matches(_:)`` does (and keeps).
    package func quickMatches(_ query: SearchQuery) -> [QuoteID]? {
        if let kept = results.matches(for: query.words) { return kept }
        guard byteCount <= Self.quickSearchBytes else { return nil }
        return matches(query)
    }

    /// How many searches this version of the index has kept (for tests).
    package var keptSearchCount: Int { results.count }

    /// ``matches(_:)`` without the kept results: a byte search of every key.
    package func search(_ query: SearchQuery) -> [QuoteID] {
        var found: [QuoteID] = []
        var inChunk: [Int] = []
        for index in chunks.indices.reversed() {
            inChunk.removeAll(keepingCapacity: true)
            chunks[index].collectSlots(matching: query.words, into: &inChunk)
            let base = index * Self.slotsPerChunk + 1
            for slot in inChunk.reversed() { found.append(QuoteID(base + slot)) }
        }
        return found
    }

    /// The chunk and slot of quote `id`; nil for ids below 1, which the reducer never gives.
    private static func position(of id: QuoteID) -> (chunk: Int, slot: Int)? {
        guard id.rawValue >= 1 else { return nil }
        let (chunk, slot) = (id.rawValue - 1).quotientAndRemainder(dividingBy: slotsPerChunk)
        return (chunk, slot)
    }
}

extension QuoteSearchIndex.Chunk {
    /// Appends, in ascending order, every non-empty slot whose key contains all of `words`:
    /// byte search for the first word across the chunk, then the others inside each hit's slot.
    func collectSlots(matching words: [[UInt8]], into slots: inout [Int]) {
        guard let first = words.first else {
            for slot in ends.indices where !range(of: slot).isEmpty { slots.append(slot) }
            return
        }
        let others = words.dropFirst()
        bytes.withUnsafeBufferPointer { haystack in
            first.withUnsafeBufferPointer { needle in
                var position = 0
                while let hit = ByteSearch.firstOffset(of: needle, in: haystack, range: position..<haystack.count) {
                    let slot = slot(containing: hit)
                    let range = range(of: slot)
                    if others.allSatisfy({ word in
                        word.withUnsafeBufferPointer { ByteSearch.firstOffset(of: $0, in: haystack, range: range) != nil }
                    }) {
                        slots.append(slot)
                    }
                    position = range.upperBound
                }
            }
        }
    }
}

/// Every quote's search key (``SearchFolding/key(text:author:)``), kept beside the state so a
/// search never folds the book: it folds the query once and runs a byte search over the keys.
///
/// Layout: keys sit back to back in chunks of ``slotsPerChunk`` consecutive quote ids, each key
/// followed by a 0 byte (which no key and no query word contains, so a match never spans two
/// quotes). A chunk's `ends[slot]` is the offset just past its slot's key; a slot of a quote that
/// does not exist is empty. Each slot's key also has a ``PairFilter`` of its byte pairs, kept on
/// its side: for each of the filter's 256 bits, the set of slots whose filter has it. A search
/// looks only inside the slots whose filter holds every pair of every word of the query (the AND
/// of the sets of those bits, newest chunk first) and runs a byte search for each word inside
/// those slots alone (``BytePattern``, its set-up made once per word per search, not per slot),
/// so a word found in few quotes reads few keys.
///
/// Costs: a write replaces one slot, moving at most one chunk's bytes (32 KB on average in the
/// scale benchmark) and updating its bit in the 256 sets; a copy of the state shares every chunk
/// until one is written. A search reads the sets of its words' pair bits (32 bytes each, about
/// 20 per chunk: 250 KB for the 100,000 quotes of the scale benchmark, where a test of every
/// slot's filter read 3.2 MB) and the keys that pass. A value, changed only by the reducer;
/// equal indexes hold equal keys (trailing empty chunks are dropped).
///
/// What a search that reads many keys finds is kept for this version of the keys
/// (``QuoteSearchResults``): a change to any chunk gives the index a new, empty set of results,
/// so a repeated search between writes costs a look-up and never sees keys other than the ones
/// it was found in. A search of few candidates is cheaper to make again than to keep.
package struct QuoteSearchIndex: Sendable, Equatable {
    /// Quote ids per chunk: small enough that rewriting one is cheap, large enough that a search
    /// makes few calls.
    static let slotsPerChunk = 256

    /// Keys of quote ids `index * slotsPerChunk + 1` onwards.
    struct Chunk: Sendable, Equatable {
        var bytes: [UInt8] = []
        var ends = [UInt32](repeating: 0, count: QuoteSearchIndex.slotsPerChunk)
        /// For each bit of a ``PairFilter``, the slots whose key's filter has it: the slots'
        /// filters turned on their side, derived from the keys (``deriveFilters()``). A search
        /// ANDs the sets of the few bits its words have (32 bytes each, about 20 of them) instead
        /// of testing the filter of every slot (32 bytes each, 256 of them).
        private(set) var slotsWithPair = [SlotSet](repeating: SlotSet(), count: PairFilter.bitCount)

        /// One bit per slot of a chunk (``slotsPerChunk`` is 256).
        typealias SlotSet = SIMD4<UInt64>

        /// Equal keys; the filters follow from them.
        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.bytes == rhs.bytes && lhs.ends == rhs.ends
        }

        /// Computes every slot's filter from its key (after the keys were read from a snapshot):
        /// each pair of adjacent bytes of each key sets its bit's set for its slot, straight into
        /// the sets' words: one hash and one OR per byte of the index. (Making each slot's filter
        /// and then visiting all 256 bits for every slot cost 65,536 steps a chunk, and four
        /// times the start-up of a 100,000-quote book: issue 32.)
        mutating func deriveFilters() {
            var words = [UInt64](repeating: 0, count: PairFilter.bitCount * SlotSet.scalarCount)
            bytes.withUnsafeBufferPointer { keys in
                ends.withUnsafeBufferPointer { ends in
                    words.withUnsafeMutableBufferPointer { words in
                        var start = 0
                        for slot in 0..<ends.count {
                            let end = Int(ends[slot])
                            let (lane, mask) = (slot >> 6, UInt64(1) << UInt64(slot & 63))
                            var index = start + 1
                            while index < end {
                                words[PairFilter.bit(keys[index - 1], keys[index]) &* SlotSet.scalarCount &+ lane] |= mask
                                index += 1
                            }
                            start = end
                        }
                    }
                }
            }
            slotsWithPair = (0..<PairFilter.bitCount).map { bit in
                let base = bit * SlotSet.scalarCount
                return SlotSet(words[base], words[base + 1], words[base + 2], words[base + 3])
            }
        }

        /// Records `filter` as `slot`'s, in the set of every bit.
        private mutating func setFilter(_ filter: PairFilter, of slot: Int) {
            let (lane, mask) = (slot >> 6, UInt64(1) << UInt64(slot & 63))
            for bit in 0..<PairFilter.bitCount {
                if filter.has(bit) { slotsWithPair[bit][lane] |= mask } else { slotsWithPair[bit][lane] &= ~mask }
            }
        }

        func range(of slot: Int) -> Range<Int> {
            (slot == 0 ? 0 : Int(ends[slot - 1]))..<Int(ends[slot])
        }

        /// Puts `key` (with its terminator; empty to clear) in `slot`, shifting the later slots.
        mutating func replace(slot: Int, with key: [UInt8]) {
            let old = range(of: slot)
            bytes.replaceSubrange(old, with: key)
            setFilter(key.withUnsafeBufferPointer { PairFilter(pairsOf: $0) }, of: slot)
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
    /// A search worth keeping (``quickMatches(_:)``) made before in this version of the index is
    /// answered from ``results``.
    package func matches(_ query: SearchQuery) -> [QuoteID] {
        if let quick = quickMatches(query) { return quick }
        return keep(search(query), for: query)
    }

    /// Up to this many bytes of keys, a byte search is quick enough for any thread, an event
    /// loop included: about 2,000 quotes, at most about 0.2 ms even for a word most quotes contain
    /// (Benchmarks/search-results). A search of a larger index takes milliseconds (2 to 10 at
    /// 100,000 quotes), so its caller runs it where waiting holds nobody else up.
    package static let quickSearchBytes = 256 * 1024

    /// A search of a quick index with at most this many candidates (the slots its words' byte
    /// pairs leave to read; every slot of every chunk holding a key when the words have no pair)
    /// is made every time and never kept. Reading 64 keys of 150 bytes costs about 5 µs; looking a result up,
    /// keeping it and dropping it unasked costs about 2 µs (Benchmarks/README.md), and a kept
    /// array outlives its request, spreading the heap. So not keeping such a search saves about
    /// 2 µs each time it is not asked for again and costs up to 5 µs each time it is: a trade for
    /// searches seldom repeated word for word between two writes. A search of more candidates,
    /// and every search of a larger index, is kept.
    package static let keptAboveCandidates = 64

    /// What ``matches(_:)`` answers, when that is quick: for an index of at most
    /// ``quickSearchBytes``, a search (kept when it had more than ``keptAboveCandidates`` candidates)
    /// or the result kept from it; for a larger one, a kept result only. Nil when it would be a
    /// byte search of a larger index, which ``matches(_:)`` does (and keeps).
    package func quickMatches(_ query: SearchQuery) -> [QuoteID]? {
        guard byteCount <= Self.quickSearchBytes else { return results.matches(for: query.normalized) }
        return withCandidates(for: query) { candidates, count in
            guard count > Self.keptAboveCandidates else { return found(in: candidates, query) }
            if let kept = results.matches(for: query.normalized) { return kept }
            return keep(found(in: candidates, query), for: query)
        }
    }

    /// `found`, kept as what `query` finds in this version of the index.
    private func keep(_ found: [QuoteID], for query: SearchQuery) -> [QuoteID] {
        results.remember(found, for: query.normalized)
        return found
    }

    /// How many searches this version of the index has kept (for tests).
    package var keptSearchCount: Int { results.count }

    /// ``matches(_:)`` without the kept results: a byte search of the candidate keys.
    package func search(_ query: SearchQuery) -> [QuoteID] {
        withCandidates(for: query) { candidates, _ in found(in: candidates, query) }
    }

    /// Calls `body` with the slots of each chunk (newest chunk first) whose filter holds every
    /// pair of every word of `query`, and how many they are: the keys its byte search reads
    /// (when the words have no pair, every slot of every chunk that holds a key, empty slots
    /// included, which the search skips; a chunk without keys has none). The sets are a
    /// temporary allocation, 32 bytes a chunk: on the stack for any book of up to 8,192 quotes.
    private func withCandidates<Result>(
        for query: SearchQuery, _ body: (UnsafeMutableBufferPointer<Chunk.SlotSet>, Int) -> Result
    ) -> Result {
        var pairs = PairFilter()
        query.forEachWord { pairs.insert(pairsOf: $0) }
        return withUnsafeTemporaryAllocation(of: Chunk.SlotSet.self, capacity: chunks.count) { slots in
            var count = 0
            for offset in 0..<chunks.count {
                let chunk = chunks[chunks.count - 1 - offset]
                // A chunk whose quotes were all deleted (kept while a later one is not) is passed
                // without reading its sets: after heavy churn most of a small book's chunks can be.
                let candidates = chunk.bytes.isEmpty ? Chunk.SlotSet() : chunk.candidates(holding: pairs)
                (slots.baseAddress! + offset).initialize(to: candidates)
                count += Self.count(of: candidates)
            }
            return body(slots, count)
        }
    }

    /// The ids of the `candidates` whose keys contain every word of `query`, highest first.
    ///
    /// Two passes, so the one array of ids is made at its size: each chunk's matching slots
    /// (written over its candidates), then their ids. The words' patterns read the query's bytes
    /// in place and sit in a temporary allocation (at most 16 of 48 bytes: on the stack).
    private func found(in candidates: UnsafeMutableBufferPointer<Chunk.SlotSet>, _ query: SearchQuery) -> [QuoteID] {
        let count = query.normalized.withUnsafeBufferPointer { text in
            withUnsafeTemporaryAllocation(of: BytePattern.self, capacity: query.wordCount) { patterns in
                var made = 0
                SearchQuery.forEachWord(of: text) { word in
                    (patterns.baseAddress! + made).initialize(to: BytePattern(word))
                    made += 1
                }
                let words = UnsafeBufferPointer(rebasing: patterns[..<made])
                var count = 0
                for offset in candidates.indices {
                    let slots = chunks[chunks.count - 1 - offset].slots(candidates[offset], matching: words)
                    candidates[offset] = slots
                    count += Self.count(of: slots)
                }
                return count
            }
        }
        var found: [QuoteID] = []
        found.reserveCapacity(count)
        for (offset, slots) in candidates.enumerated() {
            let base = (chunks.count - 1 - offset) * Self.slotsPerChunk + 1
            for lane in (0..<Chunk.SlotSet.scalarCount).reversed() {
                var bits = slots[lane]
                while bits != 0 {
                    let bit = UInt64.bitWidth - 1 - bits.leadingZeroBitCount
                    bits &= ~(UInt64(1) << UInt64(bit))
                    found.append(QuoteID(base + lane * 64 + bit))
                }
            }
        }
        return found
    }

    /// How many slots `slots` holds.
    private static func count(of slots: Chunk.SlotSet) -> Int {
        var count = 0
        for lane in 0..<Chunk.SlotSet.scalarCount { count += slots[lane].nonzeroBitCount }
        return count
    }

    /// The chunk and slot of quote `id`; nil for ids below 1, which the reducer never gives.
    private static func position(of id: QuoteID) -> (chunk: Int, slot: Int)? {
        guard id.rawValue >= 1 else { return nil }
        let (chunk, slot) = (id.rawValue - 1).quotientAndRemainder(dividingBy: slotsPerChunk)
        return (chunk, slot)
    }
}

extension QuoteSearchIndex.Chunk {
    /// The slots whose filter holds every bit of `pairs` (a query's words' ``PairFilter``): the
    /// AND of those bits' sets, every slot when the words have no pair (one-byte words, or none).
    func candidates(holding pairs: PairFilter) -> SlotSet {
        var candidates = SlotSet(repeating: ~0)
        pairs.forEachBit { candidates &= slotsWithPair[$0] }
        return candidates
    }

    /// The non-empty slots of `candidates` whose key contains all of `words`, each searched for
    /// every word (its range ends at its key's terminator, so a word is found only inside the key).
    func slots(_ candidates: SlotSet, matching words: UnsafeBufferPointer<BytePattern>) -> SlotSet {
        var matching = SlotSet()
        bytes.withUnsafeBufferPointer { haystack in
            for lane in 0..<SlotSet.scalarCount {
                var bits = candidates[lane]
                while bits != 0 {
                    let slot = lane * 64 + bits.trailingZeroBitCount
                    bits &= bits &- 1
                    let range = range(of: slot)
                    guard !range.isEmpty else { continue }
                    if words.allSatisfy({ $0.firstOffset(in: haystack, range: range) != nil }) {
                        matching[lane] |= UInt64(1) << UInt64(slot & 63)
                    }
                }
            }
        }
        return matching
    }
}

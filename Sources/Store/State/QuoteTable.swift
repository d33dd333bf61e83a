/// Every quote by id: what `[QuoteID: Quote]` was, laid out so that copying the state is cheap.
///
/// Ids are given in order from 1 (``AppReducer``), so a quote's slot is its id: chunks of
/// ``slotsPerChunk`` consecutive ids, each an array of optional quotes, empty (no storage) while
/// none of its ids exists. The store publishes a copy of the state and changes another for each
/// action: a dictionary of 100,000 quotes made every dispatch copy all of them (14.5 ms, measured
/// with `ScaleBenchmark phases`), where this copies one chunk. Lookups index, never hash.
///
/// A value; equal tables hold equal quotes (trailing empty chunks are dropped).
package struct QuoteTable: Sendable, Equatable {
    static let slotsPerChunk = 256

    private var chunks: [[Quote?]] = []
    /// How many quotes there are.
    package private(set) var count = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    /// Quote `id`, or nil; setting nil removes it. Ids below 1 are never given and never stored.
    package subscript(id: QuoteID) -> Quote? {
        // Lent, not returned: a getter retained the chunk's array to copy the quote out, and the
        // caller copied what it needed from that copy again.
        _read {
            guard let (chunk, slot) = Self.position(of: id), chunk < chunks.count, !chunks[chunk].isEmpty else {
                yield nil
                return
            }
            yield chunks[chunk][slot]
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            guard let (chunk, slot) = Self.position(of: id) else { return }
            while chunks.count <= chunk { chunks.append([]) }
            if chunks[chunk].isEmpty { chunks[chunk] = Array(repeating: nil, count: Self.slotsPerChunk) }
            if chunks[chunk][slot] == nil { count += 1 }
            chunks[chunk][slot] = newValue
        }
    }

    /// Removes quote `id`, returning it if it was there.
    @discardableResult
    package mutating func removeValue(forKey id: QuoteID) -> Quote? {
        guard let removed = self[id], let (chunk, slot) = Self.position(of: id) else { return nil }
        chunks[chunk][slot] = nil
        count -= 1
        if chunks[chunk].allSatisfy({ $0 == nil }) { chunks[chunk] = [] }
        while chunks.last?.isEmpty == true { chunks.removeLast() }
        return removed
    }

    /// Every quote, in id order (the order they were added).
    package var values: [Quote] {
        chunks.flatMap { $0.compactMap { $0 } }
    }

    /// Every id, ascending.
    package var keys: [QuoteID] {
        values.map(\.id)
    }

    /// The highest id with a quote, read from the last chunk (trailing empty chunks are dropped,
    /// so the last chunk has one); nil when the table is empty.
    package var highestID: QuoteID? {
        chunks.last?.last(where: { $0 != nil })??.id
    }

    /// Calls `body` with each quote whose id is in `ids`, in id order, read chunk by chunk
    /// without a lookup each and lent from its slot, not copied out (copying each quote's fields
    /// was the largest part of writing a snapshot).
    package func forEachQuote(inIDs ids: ClosedRange<Int>, _ body: (Quote) -> Void) {
        guard !chunks.isEmpty else { return }
        let stored = 1...chunks.count * Self.slotsPerChunk
        guard ids.overlaps(stored) else { return }
        let ids = ids.clamped(to: stored)
        var id = ids.lowerBound
        while id <= ids.upperBound {
            let (chunk, first) = (id - 1).quotientAndRemainder(dividingBy: Self.slotsPerChunk)
            let last = min(Self.slotsPerChunk - 1, first + ids.upperBound - id)
            if !chunks[chunk].isEmpty {
                for slot in first...last where chunks[chunk][slot] != nil { body(chunks[chunk][slot].unsafelyUnwrapped) }
            }
            id += last - first + 1
        }
    }

    /// The ids of the quotes `person` added, ascending (the order they were added): each slot's
    /// adder compared where it lies, chunk by chunk, with no lookup and no quote copied out.
    /// Copying each quote out to read its adder (a retain and a release of its texts) made a
    /// profile's list cost about 2 ms at 100,000 quotes, on the event loop, after every write.
    package func ids(addedBy person: UserID) -> [QuoteID] {
        var ids: [QuoteID] = []
        for chunk in chunks where !chunk.isEmpty {
            chunk.withUnsafeBufferPointer { slots in
                for slot in slots.indices where slots[slot]?.addedBy == person {
                    ids.append(slots[slot].unsafelyUnwrapped.id)
                }
            }
        }
        return ids
    }

    /// How many quotes have ids in `ids`.
    package func count(inIDs ids: ClosedRange<Int>) -> Int {
        var count = 0
        forEachQuote(inIDs: ids) { _ in count += 1 }
        return count
    }

    /// A quote held by its chunk and slot: lending one retains the chunk's array, where copying
    /// it out retained its text and author.
    package struct Lent: Sendable {
        /// The chunk and the slot in it: stored, so that a caller reading a field of a lent
        /// quote inside an array of them can reach it without copying the element out (a
        /// computed ``quote`` on an array's element copies the element first).
        package let chunk: [Quote?]
        package let slot: Int

        /// A quote of no table: held in a chunk of its own.
        package init(_ quote: Quote) {
            chunk = [quote]
            slot = 0
        }

        /// The quote in `slot` of `chunk`, a chunk of a table (``QuoteTable/chunk(_:)``) or of
        /// a lent quote; the slot must hold a quote.
        package init(chunk: [Quote?], slot: Int) {
            precondition(chunk[slot] != nil, "a quote lent from an empty slot")
            self.chunk = chunk
            self.slot = slot
        }

        /// The quote (always there: only a filled slot is lent).
        package var quote: Quote {
            _read { yield chunk[slot]! }
        }
    }

    /// Where quote `id` is: the index of its chunk (``chunk(_:)``) and its slot there, with who
    /// added it; nil when there is none. For a list that holds each chunk it lends from once,
    /// where a ``Lent`` each retains its chunk: a count both event loops write, as they list
    /// from the same chunks. Who added it comes along because a list looks them up, and read
    /// here it is one number, where App read it through a copy of the whole quote.
    package func place(of id: QuoteID) -> (chunk: Int, slot: Int, addedBy: UserID?)? {
        guard let (chunk, slot) = Self.position(of: id), chunk < chunks.count, !chunks[chunk].isEmpty, chunks[chunk][slot]?.id == id
        else { return nil }
        return (chunk, slot, chunks[chunk][slot]?.addedBy ?? nil)
    }

    /// Chunk `index` of the table (an index ``place(of:)`` gave).
    package func chunk(_ index: Int) -> [Quote?] { chunks[index] }

    /// Chunks of consecutive ids filled apart from any table, then appended whole
    /// (``append(_:)``) without copying a quote: how a snapshot's blocks, read each on its own
    /// core, become one table.
    struct Run {
        /// The index of the run's first chunk in the table it joins.
        let firstChunk: Int
        private(set) var chunks: [[Quote?]]
        private(set) var count = 0

        /// An empty run of `chunkCount` chunks, from chunk `firstChunk` on.
        init(firstChunk: Int, chunkCount: Int) {
            self.firstChunk = firstChunk
            chunks = Array(repeating: [], count: chunkCount)
        }

        /// The ids the run has slots for.
        var ids: ClosedRange<Int> {
            (firstChunk * QuoteTable.slotsPerChunk + 1)...((firstChunk + chunks.count) * QuoteTable.slotsPerChunk)
        }

        /// Puts `quote` in its slot; false, and nothing changed, when its id is outside the run
        /// or already there.
        mutating func insertNew(_ quote: Quote) -> Bool {
            guard ids.contains(quote.id.rawValue) else { return false }
            let (chunk, slot) = (quote.id.rawValue - ids.lowerBound).quotientAndRemainder(dividingBy: QuoteTable.slotsPerChunk)
            if chunks[chunk].isEmpty { chunks[chunk] = Array(repeating: nil, count: QuoteTable.slotsPerChunk) }
            guard chunks[chunk][slot] == nil else { return false }
            chunks[chunk][slot] = quote
            count += 1
            return true
        }
    }

    /// Appends `run`, which must begin at or past the table's last chunk with a quote.
    mutating func append(_ run: Run) {
        precondition(run.firstChunk >= chunks.count, "a run appended over chunks the table has")
        chunks += repeatElement([], count: run.firstChunk - chunks.count)
        chunks += run.chunks
        count += run.count
        while chunks.last?.isEmpty == true { chunks.removeLast() }
    }

    /// The chunk and slot of quote `id`; nil for ids below 1.
    private static func position(of id: QuoteID) -> (chunk: Int, slot: Int)? {
        guard id.rawValue >= 1 else { return nil }
        let (chunk, slot) = (id.rawValue - 1).quotientAndRemainder(dividingBy: slotsPerChunk)
        return (chunk, slot)
    }
}

/// One word of a search, made ready once per search to be looked for in many short keys: the
/// word's first and last bytes, each repeated across a 16-byte vector.
///
/// Why not the C library's `memmem(3)`: the keys are short (100 to 150 bytes), and glibc's memmem,
/// for a word of 3 to 256 bytes, clears a 256-byte shift table and hashes the word on every call
/// before it reads a byte of the key, which was most of what a search cost (6.5 % of a signed-in
/// search page's CPU). Here that set-up is two vector broadcasts, once per word per search.
///
/// Made over a word read in place (a range of a ``SearchQuery``'s bytes), with no copy: valid
/// only while those bytes are, which the search that makes it keeps them.
///
/// The scan ("first and last byte"): for 16 start positions at a time, compare the 16 bytes at
/// the positions with the word's first byte and the 16 bytes `count - 1` further on with its
/// last byte; only where both agree (rare unless the word is there) are the bytes between
/// compared one by one. Two unaligned loads and a few vector instructions per 16 bytes of key;
/// the last positions of the buffer, where a 16-byte load would read past its end, are tested
/// one byte at a time.
package struct BytePattern {
    /// Start positions tested at once: one SSE2 or NEON register of bytes.
    private typealias Block = SIMD16<UInt8>

    /// The word, borrowed: whoever makes the pattern keeps these bytes alive while it is used.
    private let word: UnsafeBufferPointer<UInt8>
    private let first: Block
    private let last: Block

    package init(_ word: UnsafeBufferPointer<UInt8>) {
        self.word = word
        first = Block(repeating: word.first ?? 0)
        last = Block(repeating: word.last ?? 0)
    }

    /// The offset in `haystack` of the first occurrence of the word that lies wholly inside
    /// `range`, or nil. The empty word is found at the start of the range. Bytes of `haystack`
    /// after the range may be read (never a byte outside `haystack`) but are never part of a
    /// match, so a range that ends at a key's terminator finds only matches inside that key.
    package func firstOffset(in haystack: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> Int? {
        let count = word.count
        guard count > 0 else { return range.lowerBound }
        guard let base = haystack.baseAddress, range.lowerBound >= 0, range.upperBound <= haystack.count,
            range.count >= count
        else { return nil }
        // The last start of a match that fits in the range.
        let lastStart = range.upperBound - count
        // The last start whose two loads (at it and `count - 1` after) stay inside the buffer.
        let lastBlockStart = haystack.count - Block.scalarCount - (count - 1)
        var start = range.lowerBound
        while start <= lastStart && start <= lastBlockStart {
            let atFirst = UnsafeRawPointer(base + start).loadUnaligned(as: Block.self)
            let atLast = UnsafeRawPointer(base + start + count - 1).loadUnaligned(as: Block.self)
            let candidates = (atFirst .== first) .& (atLast .== last)
            if any(candidates) {
                // One byte per lane, 1 where both ends agree, read as two 64-bit words so each
                // candidate is a set bit, lowest lane first.
                let lanes = Block(repeating: 0).replacing(with: 1, where: candidates)
                let halves = unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
                for half in 0..<2 {
                    var bits = UInt64(littleEndian: halves[half])
                    while bits != 0 {
                        let candidate = start + half * 8 + bits.trailingZeroBitCount / 8
                        // Candidates come in ascending order, so none after this one fits.
                        if candidate > lastStart { return nil }
                        if Self.middleMatches(word, at: base + candidate) { return candidate }
                        bits &= bits &- 1
                    }
                }
            }
            start += Block.scalarCount
        }
        while start <= lastStart {
            if base[start] == word[0] && base[start + count - 1] == word[count - 1]
                && Self.middleMatches(word, at: base + start)
            {
                return start
            }
            start += 1
        }
        return nil
    }

    /// Whether the bytes between the word's first and last equal those after `candidate` (whose
    /// first and last bytes were already compared).
    private static func middleMatches(_ word: UnsafeBufferPointer<UInt8>, at candidate: UnsafePointer<UInt8>) -> Bool {
        var index = 1
        while index < word.count - 1 {
            if candidate[index] != word[index] { return false }
            index += 1
        }
        return true
    }
}

private import CByteSearch

/// Finding a byte string inside another with the C library's `memmem(3)` (vectorised in glibc): a
/// search for a word found nowhere reads the 12.5 MB index of a 100,000-quote book in 1.8 ms here
/// (`ScaleBenchmark phases`). Each call costs about a tenth of a microsecond to set up, so a word
/// found in most quotes ("the") costs more, about 7 ms, for the restart after every hit.
enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack[range]`, or nil. An empty
    /// needle is found at the start of the range.
    static func firstOffset(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> Int? {
        guard let base = haystack.baseAddress, range.lowerBound >= 0, range.upperBound <= haystack.count else { return nil }
        guard let found = memmem(base + range.lowerBound, range.count, needle.baseAddress, needle.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}

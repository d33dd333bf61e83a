private import CByteSearch

/// Finding a byte string inside another with the C library's `memmem(3)`, which glibc implements
/// with a skip table over byte pairs: about 8 GB/s here, against under 1 GB/s for a byte loop.
enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `haystack[range]`, or nil. An empty
    /// needle is found at the start of the range.
    static func firstOffset(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, range: Range<Int>) -> Int? {
        guard let base = haystack.baseAddress, range.lowerBound >= 0, range.upperBound <= haystack.count else { return nil }
        guard let found = memmem(base + range.lowerBound, range.count, needle.baseAddress, needle.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}

/// Comparisons whose running time does not reveal where two secrets differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, looking at every byte whatever the first
    /// difference, so response timing cannot be used to guess a secret byte by byte.
    ///
    /// Only the lengths are compared early: a length mismatch returns `false` at once, so use
    /// this on values whose length is public (digests, fixed-size tokens, crypt strings).
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(a, b) {
            difference |= left ^ right
        }
        return difference == 0
    }
}

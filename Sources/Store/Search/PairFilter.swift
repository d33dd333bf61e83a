/// The byte pairs a key holds, as a 256-bit set (a pair's bit is a hash of it), so a search can
/// tell most keys that cannot contain a word without reading them: a key holds every pair of
/// each word it contains, so a key whose set lacks one of them holds no occurrence (no false
/// negatives); a key may hold all the pairs without the word (a false positive, which the byte
/// search inside the key then settles). A key of 100 bytes sets about a third of the bits, so a
/// six-letter word's five pairs pass about 1 key in 300 that lacks it. A one-byte word has no
/// pair and passes every key.
package struct PairFilter: Sendable, Equatable {
    private var bits = SIMD4<UInt64>(repeating: 0)

    package init() {}

    package init(pairsOf bytes: UnsafeBufferPointer<UInt8>) {
        insert(pairsOf: bytes)
    }

    /// Adds every pair of adjacent bytes of `bytes`.
    package mutating func insert(pairsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 2 else { return }
        var lanes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        for index in 1..<bytes.count {
            let bit = Self.bit(bytes[index - 1], bytes[index])
            let mask = UInt64(1) << UInt64(bit & 63)
            switch bit >> 6 {
            case 0: lanes.0 |= mask
            case 1: lanes.1 |= mask
            case 2: lanes.2 |= mask
            default: lanes.3 |= mask
            }
        }
        bits |= SIMD4(lanes.0, lanes.1, lanes.2, lanes.3)
    }

    /// Bits in a filter: pairs hash to one of these.
    package static let bitCount = 256

    /// Whether bit `bit` (0 to 255) is set.
    package func has(_ bit: Int) -> Bool {
        bits[bit >> 6] & (UInt64(1) << UInt64(bit & 63)) != 0
    }

    /// Calls `body` with each set bit, in ascending order.
    package func forEachBit(_ body: (Int) -> Void) {
        for lane in 0..<4 {
            var word = bits[lane]
            while word != 0 {
                body(lane * 64 + word.trailingZeroBitCount)
                word &= word &- 1
            }
        }
    }

    /// The pair's bit, 0 to 255: the top byte of a multiplicative hash of the two bytes.
    @inline(__always)
    static func bit(_ first: UInt8, _ second: UInt8) -> Int {
        Int(((UInt32(first) << 8 | UInt32(second)) &* 0x9E37_79B1) >> 24)
    }
}

/// The URL- and filename-safe base 64 encoding of RFC 4648 §5, without `=` padding, for
/// tokens that travel in cookies, URLs and form fields.
package enum Base64URL {
    /// `bytes` as unpadded base64url text (`A–Z a–z 0–9 - _`), written straight into the string
    /// (no intermediate array).
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: encodedCount(of: bytes.count)) { encode(bytes, into: $0) }
    }

    /// How many characters `count` bytes encode to.
    package static func encodedCount(of count: Int) -> Int {
        (count * 4 + 2) / 3
    }

    /// Writes `bytes` as unpadded base64url text to the start of `output`, which has room for
    /// ``encodedCount(of:)`` characters; returns how many it wrote.
    package static func encode(_ bytes: some Collection<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // Writes through the pointer are not bounds-checked in a release build.
        precondition(output.count >= encodedCount(of: bytes.count), "no room for the encoded bytes")
        var written = 0
        func put(_ group: UInt32, _ shift: UInt32) {
            output[written] = alphabet[Int(group >> shift & 0x3f)]
            written += 1
        }
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            put(group, 18)
            put(group, 12)
            if second != nil { put(group, 6) }
            if third != nil { put(group, 0) }
        }
        return written
    }

    /// The bytes encoded by unpadded base64url `text`, or `nil` if it is not exactly that.
    ///
    /// Rejects padding, whitespace, the `+` and `/` of standard base 64, a length of 1 modulo
    /// 4 (no byte count encodes to it) and non-zero unused bits in the last character
    /// (RFC 4648 §3.5), so every byte string has exactly one accepted encoding.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for character in utf8 {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
                accumulator &= (1 << UInt32(bitCount)) - 1
            }
        }
        guard accumulator == 0 else { return nil }
        return output
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}

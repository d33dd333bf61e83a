/// Base 16 (RFC 4648 §8): the one place bytes become hexadecimal digits and back — digests in
/// logs and ETags, percent-escapes in URLs and forms, chunk sizes, PostgreSQL `bytea` text.
package enum Hex {
    /// `bytes` as lower-case hexadecimal, two digits per byte.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(lowercase[Int(byte >> 4)])
            output.append(lowercase[Int(byte & 0x0f)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes written as hexadecimal `text` (either case), or `nil` for an odd length or
    /// any character that is not a hex digit (including whitespace and a `0x` prefix).
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for character in utf8 {
            guard let value = value(of: character) else { return nil }
            if let first = high {
                output.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return output
    }

    /// The value of one hexadecimal digit (either case), or nil.
    @inline(__always)
    package static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The digits 0–9, a–f.
    package static let lowercase = Array("0123456789abcdef".utf8)
    /// The digits 0–9, A–F (what percent-encoding writes, RFC 3986 §2.1).
    package static let uppercase = Array("0123456789ABCDEF".utf8)
}

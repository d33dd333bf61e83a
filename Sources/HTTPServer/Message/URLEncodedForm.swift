/// Fields of an `application/x-www-form-urlencoded` body or query (WHATWG URL §5.1): `&`
/// separates pairs, `=` name from value, `+` is a space, `%XX` a byte; names and values are UTF-8.
package struct URLEncodedForm: Sendable, Equatable {
    /// Pairs in order; a name may repeat.
    package private(set) var pairs: [(name: String, value: String)] = []

    /// Why a body is not a form.
    package enum DecodingError: Error, Equatable {
        /// `%` not followed by two hex digits.
        case badPercentEscape
        /// The decoded bytes are not UTF-8.
        case invalidUTF8
    }

    package init() {}

    package init(_ bytes: some Collection<UInt8>) throws(DecodingError) {
        // One concrete (non-generic) implementation: generic code called across the module
        // boundary runs unspecialized, which made form decoding the main cost of a POST.
        let array = Array(bytes)
        pairs = try array.withUnsafeBufferPointer { buffer throws(DecodingError) in try Self.parsePairs(buffer) }
    }

    private static func parsePairs(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append(
                        (
                            try decodeBytes(UnsafeBufferPointer(rebasing: piece[..<equals])),
                            try decodeBytes(UnsafeBufferPointer(rebasing: piece[(equals + 1)...]))
                        ))
                } else {
                    pairs.append((try decodeBytes(piece), ""))
                }
            }
            start = end + 1
        }
        return pairs
    }

    /// The first value for `name`, or nil.
    package subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    package static func == (lhs: URLEncodedForm, rhs: URLEncodedForm) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
    }

    /// Percent- and plus-decodes one name or value.
    package static func decode(_ bytes: some Collection<UInt8>) throws(DecodingError) -> String {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(DecodingError) in try decodeBytes(buffer) }
    }

    private static func decodeBytes(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let h = hexValue(bytes[index + 1]), let l = hexValue(bytes[index + 2]) else {
                    throw .badPercentEscape
                }
                out.append(h << 4 | l)
                index += 2
            default:
                out.append(byte)
            }
            index += 1
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return string
    }

    /// Percent-encodes `string` for a query or form value (unreserved bytes kept, space as `+`).
    package static func encode(_ string: String) -> String {
        var out = ""
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: " "):
                out.append("+")
            default:
                out.append("%")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// `name=value` pairs joined by `&`, each side encoded as ``encode(_:)`` does: a form body or
    /// a query.
    package static func encode(pairs: some Sequence<(name: String, value: String)>) -> String {
        pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

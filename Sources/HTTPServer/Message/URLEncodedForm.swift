import Basics

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
        try self.init(array.withUnsafeBufferPointer { buffer throws(DecodingError) in try Self.parsePairs(buffer) })
    }

    /// The form of a string's UTF-8 bytes (a query), read in place.
    package init(_ text: String) throws(DecodingError) {
        let parsed = text.withUTF8InPlace { buffer in
            Result { () throws(DecodingError) in try Self.parsePairs(buffer) }
        }
        self.init(try parsed.get())
    }

    private init(_ pairs: [(name: String, value: String)]) {
        self.pairs = pairs
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
                            try decode(UnsafeBufferPointer(rebasing: piece[..<equals])),
                            try decode(UnsafeBufferPointer(rebasing: piece[(equals + 1)...]))
                        ))
                } else {
                    pairs.append((try decode(piece), ""))
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
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBufferPointer { buffer throws(DecodingError) in try decode(buffer) }
    }

    /// ``decode(_:)-(some Collection<UInt8>)`` of contiguous bytes; most names and values (a
    /// page number, a word searched for) hold no escape and become a string with one copy.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> String {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            guard let string = utf8String(bytes) else { throw .invalidUTF8 }
            return string
        }
        // Decoded into a temporary allocation (on the stack for up to 1 KB: a search's words), not
        // an array made and dropped for each value.
        let decoded = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { output in
            Result { () throws(DecodingError) -> String in
                let count: Int
                do {
                    count = try PercentEncoding.decode(bytes, plusIsSpace: true, into: output)
                } catch {
                    throw .badPercentEscape
                }
                guard let string = utf8String(UnsafeBufferPointer(rebasing: output[..<count])) else { throw .invalidUTF8 }
                return string
            }
        }
        return try decoded.get()
    }

    /// `bytes` as a string, or nil when they are not UTF-8. ASCII, the usual case, is taken as it
    /// is: `String(validating:as:)` is generic and was a visible cost of every query in a profile.
    private static func utf8String(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Percent-encodes `string` for a query or form value (unreserved bytes and `/` kept, space
    /// as `+`).
    package static func encode(_ string: String) -> String {
        PercentEncoding.encode(string, keepingSlash: true, spaceAsPlus: true)
    }

    /// `name=value` pairs joined by `&`, each side encoded as ``encode(_:)`` does: a form body or
    /// a query.
    package static func encode(pairs: some Sequence<(name: String, value: String)>) -> String {
        pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }
}

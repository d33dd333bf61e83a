import Basics
import Glibc

/// The cookies a request carries, from its `Cookie` header fields (RFC 6265 §5.4: `a=b; c=d`).
///
/// Names are case-sensitive; a value may be wrapped in double quotes, which are removed. A
/// cookie-pair without `=` is ignored, and when a name repeats the first value wins (browsers
/// send the most specific path first).
package struct HTTPCookies: Sendable, Equatable {
    /// The `Cookie` fields' values as they came, the first apart (a request rarely has more than
    /// one field): nothing is copied out of them until a cookie is asked for (the first is walked
    /// once for ``starts``), and a look-up makes one `String`, the value it finds. (Parsing every pair into strings up front cost six
    /// allocations a request for the two cookies a signed-in browser sends.)
    private var first: String?
    private var others: [String] = []
    /// Where the first field's pairs start, found in one pass when the cookies are made: a
    /// request looks up four or five cookies on its way through the chain (the seen write, the
    /// page cache's session test, the notice, the session), and each look-up walked the whole
    /// field byte by byte again, the absent ones to its end (1.5 % of a signed-in list page's
    /// CPU, `perf`). One word, so the cookies stay small enough to be passed and read without
    /// copies (an inline table of ranges made them large, and every look-up copied them,
    /// retaining their strings: 7 more reference-count calls a request, counted).
    private var starts = PairStarts.none

    package init(_ headers: HTTPHeaders) {
        headers.forEachValue(for: "Cookie") { value in
            if first == nil { first = value } else { others.append(value) }
            return true
        }
        if others.isEmpty, let first { starts = first.withUTF8InPlace(PairStarts.init(of:)) }
    }

    /// Up to four starts of the pairs of one field, 14 bits each, and their count (plus one, so
    /// zero is "not indexed") in the top byte; not indexed when the field has more pairs or
    /// a pair starts past 16 KiB.
    private struct PairStarts: Sendable {
        private static let capacity = 4
        private static let bits = 14
        private static let mask: UInt64 = (1 << 14) - 1
        private var word: UInt64

        static let none = PairStarts(word: 0)

        private init(word: UInt64) { self.word = word }

        init(of bytes: UnsafeBufferPointer<UInt8>) {
            var word: UInt64 = 0
            var count = 0
            let complete = HTTPCookies.forEachPair(in: bytes) { _, name, _ in
                guard count < Self.capacity, UInt64(name.lowerBound) <= Self.mask else { return false }
                word |= UInt64(name.lowerBound) << UInt64(count * Self.bits)
                count += 1
                return true
            }
            self.word = complete ? word | UInt64(count + 1) << 56 : 0
        }

        var isIndexed: Bool { word != 0 }
        var count: Int { Int(word >> 56) - 1 }
        subscript(pair: Int) -> Int { Int((word >> UInt64(pair * Self.bits)) & Self.mask) }
    }
    /// The first value of the cookie called `name` (compared byte for byte, as RFC 6265 compares
    /// names), or nil.
    package subscript(name: String) -> String? {
        var found: String?
        forEachPair(named: name) { bytes, value in found = Self.string(bytes, value) }
        return found
    }

    /// Whether there is a cookie called `name` (compared as the subscript compares), making no
    /// string of its value.
    package func contains(_ name: String) -> Bool {
        var found = false
        forEachPair(named: name) { _, _ in found = true }
        return found
    }

    /// Calls `body` with the first pair called `name`: its field's bytes and its value's range.
    private func forEachPair(named name: String, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void) {
        name.withUTF8InPlace { wanted in
            if starts.isIndexed, let first, Self.isPlainName(wanted) {
                first.withUTF8InPlace { bytes in
                    guard let value = value(named: wanted, in: bytes) else { return }
                    body(bytes, value)
                }
                return
            }
            forEachPair { bytes, name, value in
                // The lengths first, then one `memcmp`: most names differ in length, and a generic
                // `elementsEqual` stepped an iterator through each byte.
                guard name.count == wanted.count,
                    wanted.isEmpty || memcmp(bytes.baseAddress! + name.lowerBound, wanted.baseAddress!, wanted.count) == 0
                else { return true }
                body(bytes, value)
                return false
            }
        }
    }

    /// A name an indexed look-up can find: not empty, with no `=` or `;` (a cookie's name is a
    /// token, which has neither); any other is looked for by walking, and found by no pair.
    private static func isPlainName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        !name.isEmpty && !name.contains(UInt8(ascii: "=")) && !name.contains(ASCII.semicolon)
    }

    /// The value's range of the first indexed pair whose name is `wanted`: a pair's name runs
    /// from its start to its first `=`, so it is `wanted` exactly when its bytes begin with
    /// `wanted` and `=` follows (`wanted` holding no `=` or `;`). The value runs to the pair's
    /// `;` or the field's end, trimmed and unquoted as the walk does.
    private func value(named wanted: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        for pair in 0..<starts.count {
            let start = starts[pair]
            let equals = start + wanted.count
            guard equals < bytes.count, bytes[equals] == UInt8(ascii: "="),
                memcmp(bytes.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0
            else { continue }
            var pieceEnd = equals + 1
            while pieceEnd < bytes.count, bytes[pieceEnd] != ASCII.semicolon { pieceEnd += 1 }
            return Self.value(in: bytes, after: equals, end: pieceEnd)
        }
        return nil
    }

    /// A pair's value: from after its `=` to `end`, trailing spaces and tabs trimmed, and the
    /// double quotes around it removed.
    private static func value(in bytes: UnsafeBufferPointer<UInt8>, after equals: Int, end: Int) -> Range<Int> {
        var valueStart = equals + 1
        var valueEnd = end
        while valueEnd > valueStart, ASCII.isOptionalWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        if valueEnd - valueStart >= 2, bytes[valueStart] == UInt8(ascii: "\""), bytes[valueEnd - 1] == UInt8(ascii: "\"") {
            valueStart += 1
            valueEnd -= 1
        }
        return valueStart..<valueEnd
    }

    /// Every pair, in order (names and values as strings).
    private var pairs: [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        forEachPair { bytes, name, value in
            pairs.append((Self.string(bytes, name), Self.string(bytes, value)))
            return true
        }
        return pairs
    }

    /// The same pairs in the same order, byte for byte (as look-ups compare names).
    package static func == (lhs: HTTPCookies, rhs: HTTPCookies) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) {
            $0.name.utf8.elementsEqual($1.name.utf8) && $0.value.utf8.elementsEqual($1.value.utf8)
        }
    }

    /// Calls `body` with each pair's field bytes and the ranges of its name and value, field by
    /// field, until it returns false.
    private func forEachPair(_ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>) -> Bool) {
        guard let first, first.withUTF8InPlace({ Self.forEachPair(in: $0, body) }) else { return }
        for field in others {
            guard field.withUTF8InPlace({ Self.forEachPair(in: $0, body) }) else { return }
        }
    }

    /// The pairs of one `Cookie` field, read as UTF-8 bytes: the delimiters are ASCII, so no
    /// `Character` (grapheme) needs to be formed. False when `body` stopped.
    private static func forEachPair(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>) -> Bool
    ) -> Bool {
        var pieceStart = 0
        while pieceStart < bytes.count {
            var pieceEnd = pieceStart
            while pieceEnd < bytes.count, bytes[pieceEnd] != ASCII.semicolon { pieceEnd += 1 }
            var start = pieceStart
            var end = pieceEnd
            while start < end, ASCII.isOptionalWhitespace(bytes[start]) { start += 1 }
            while end > start, ASCII.isOptionalWhitespace(bytes[end - 1]) { end -= 1 }
            pieceStart = pieceEnd + 1
            var equals = start
            while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            guard equals < end, equals != start else { continue }
            guard body(bytes, start..<equals, value(in: bytes, after: equals, end: end)) else { return false }
        }
        return true
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}

/// A `Set-Cookie` header value (RFC 6265 §4.1) with the attributes Quotebook uses.
package struct SetCookie: Sendable, Equatable {
    package enum SameSite: String, Sendable { case lax = "Lax", strict = "Strict" }

    package var name: String
    /// Must be cookie-octets only (no space, `"`, `,`, `;` or `\`): tokens are base64url.
    package var value: String
    package var path = "/"
    /// Seconds until it expires; nil for a session cookie, 0 to delete it.
    package var maxAge: Int?
    package var isHTTPOnly = true
    package var isSecure = false
    package var sameSite: SameSite? = .lax

    package init(name: String, value: String, maxAge: Int? = nil, isSecure: Bool = false) {
        self.name = name
        self.value = value
        self.maxAge = maxAge
        self.isSecure = isSecure
    }

    /// A cookie that makes the browser delete `name` at once.
    package static func deleting(_ name: String, isSecure: Bool) -> SetCookie {
        SetCookie(name: name, value: "", maxAge: 0, isSecure: isSecure)
    }

    /// The header value: `name=value; Path=/; Max-Age=…; HttpOnly; Secure; SameSite=Lax`.
    package var headerValue: String {
        var text = "\(name)=\(value); Path=\(path)"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        if isHTTPOnly { text += "; HttpOnly" }
        if isSecure { text += "; Secure" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }
}

extension HTTPRequest {
    /// The request's cookies.
    package var cookies: HTTPCookies { HTTPCookies(headers) }
}

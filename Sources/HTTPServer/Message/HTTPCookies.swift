import Basics
import Glibc

/// The cookies a request carries, from its `Cookie` header fields (RFC 6265 §5.4: `a=b; c=d`).
///
/// Names are case-sensitive; a value may be wrapped in double quotes, which are removed. A
/// cookie-pair without `=` is ignored, and when a name repeats the first value wins (browsers
/// send the most specific path first).
package struct HTTPCookies: Sendable, Equatable {
    /// The `Cookie` fields' values as they came, the first apart (a request rarely has more than
    /// one field): nothing is parsed or copied until a cookie is asked for, and a look-up makes
    /// one `String`, the value it finds. (Parsing every pair into strings up front cost six
    /// allocations a request for the two cookies a signed-in browser sends.)
    private var first: String?
    private var others: [String] = []
    /// Where the first field's pairs are, found in one pass when the cookies are made: a request
    /// looks up four or five cookies on its way through the chain (the seen write, the page
    /// cache's session test, the notice, the session), and each look-up walked the whole field
    /// byte by byte again, the absent ones to its end (1.5 % of a signed-in list page's CPU,
    /// `perf`). Held inline, so it costs no allocation; nil when the field has more pairs than
    /// it holds or another field follows, and then look-ups walk the fields as before.
    private var index: PairIndex?

    package init(_ headers: HTTPHeaders) {
        headers.forEachValue(for: "Cookie") { value in
            if first == nil { first = value } else { others.append(value) }
            return true
        }
        guard let first, others.isEmpty, first.utf8.count <= Int(Int32.max) else { return }
        var index = PairIndex()
        let complete = first.withUTF8InPlace { bytes in
            Self.forEachPair(in: bytes) { _, name, value in index.append(name: name, value: value) }
        }
        if complete { self.index = index }
    }

    /// Up to ``capacity`` pairs of one field, as offsets into its bytes.
    private struct PairIndex: Sendable {
        static let capacity = 6
        private var bounds = InlineArray<24, Int32>(repeating: 0)
        private(set) var count = 0

        /// False when full: the field has more pairs than an index holds.
        mutating func append(name: Range<Int>, value: Range<Int>) -> Bool {
            guard count < Self.capacity else { return false }
            let base = count * 4
            bounds[base] = Int32(truncatingIfNeeded: name.lowerBound)
            bounds[base + 1] = Int32(truncatingIfNeeded: name.upperBound)
            bounds[base + 2] = Int32(truncatingIfNeeded: value.lowerBound)
            bounds[base + 3] = Int32(truncatingIfNeeded: value.upperBound)
            count += 1
            return true
        }

        func name(_ pair: Int) -> Range<Int> { Int(bounds[pair * 4])..<Int(bounds[pair * 4 + 1]) }
        func value(_ pair: Int) -> Range<Int> { Int(bounds[pair * 4 + 2])..<Int(bounds[pair * 4 + 3]) }
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
        guard let first else { return }
        if let index {
            first.withUTF8InPlace { bytes in
                for pair in 0..<index.count where !body(bytes, index.name(pair), index.value(pair)) { return }
            }
            return
        }
        guard first.withUTF8InPlace({ Self.forEachPair(in: $0, body) }) else { return }
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
            var valueStart = equals + 1
            var valueEnd = end
            if valueEnd - valueStart >= 2, bytes[valueStart] == UInt8(ascii: "\""), bytes[valueEnd - 1] == UInt8(ascii: "\"") {
                valueStart += 1
                valueEnd -= 1
            }
            guard body(bytes, start..<equals, valueStart..<valueEnd) else { return false }
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

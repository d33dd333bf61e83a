/// A field value made of a token and parameters, such as `multipart/form-data; boundary=x`
/// (RFC 9110 §8.3.1) or `form-data; name="a"` (RFC 7578 §4.2, RFC 6266 §4.1).
///
/// Grammar of RFC 9110 §5.6.6: `value *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )`.
/// Leniencies: whitespace is also allowed around `=`, and empty parameters (`;;`) are skipped.
/// Quoted strings are unescaped per §5.6.4 (`\x` stands for `x`). Extended parameters
/// (`filename*=UTF-8''…`, RFC 8187) come back as plain pairs with their raw, encoded value.
package struct HeaderParameters: Sendable, Equatable {
    /// The leading token, lowercased: a media type (`type/subtype`) or a disposition type.
    package var value: String
    /// Parameters in order, names lowercased, values unquoted and in their original case; a
    /// name may repeat.
    package var parameters: [(name: String, value: String)]

    /// Parses `text`, or returns nil if it does not follow the grammar above.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let parsed = bytes.withUnsafeBufferPointer({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(value: String, parameters: [(name: String, value: String)]) {
        self.value = value
        self.parameters = parameters
    }

    /// The first value of the parameter `name`, matched case-insensitively, or nil.
    package subscript(name: String) -> String? {
        let lowercased = name.lowercased()
        return parameters.first { $0.name == lowercased }?.value
    }

    /// How many times the parameter `name` (matched case-insensitively) occurs.
    package func count(of name: String) -> Int {
        let lowercased = name.lowercased()
        return parameters.count(where: { $0.name == lowercased })
    }

    package static func == (lhs: HeaderParameters, rhs: HeaderParameters) -> Bool {
        lhs.value == rhs.value && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HeaderParameters? {
        var index = 0
        skipWhitespace(bytes, &index)
        // token [ "/" token ]
        let valueStart = index
        skipToken(bytes, &index)
        guard index > valueStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "/") {
            index += 1
            let subtypeStart = index
            skipToken(bytes, &index)
            guard index > subtypeStart else { return nil }
        }
        let value = lowercasedString(UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
        var parameters: [(name: String, value: String)] = []
        while true {
            skipWhitespace(bytes, &index)
            if index == bytes.count { return HeaderParameters(value: value, parameters: parameters) }
            guard bytes[index] == ASCII.semicolon else { return nil }
            index += 1
            skipWhitespace(bytes, &index)
            if index == bytes.count || bytes[index] == ASCII.semicolon { continue }
            let nameStart = index
            skipToken(bytes, &index)
            guard index > nameStart else { return nil }
            let name = lowercasedString(UnsafeBufferPointer(rebasing: bytes[nameStart..<index]))
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipWhitespace(bytes, &index)
            guard let parameterValue = parseParameterValue(bytes, &index) else { return nil }
            parameters.append((name, parameterValue))
        }
    }

    /// `token / quoted-string` (RFC 9110 §5.6.2, §5.6.4); advances `index` past it.
    private static func parseParameterValue(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> String? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "\"") else {
            let start = index
            skipToken(bytes, &index)
            guard index > start else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        index += 1
        var unquoted: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: unquoted, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < bytes.count, ASCII.isFieldValueByte(bytes[index + 1]) else { return nil }
                unquoted.append(bytes[index + 1])
                index += 2
            default:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                guard ASCII.isFieldValueByte(byte) else { return nil }
                unquoted.append(byte)
                index += 1
            }
        }
        return nil
    }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, ASCII.isOptionalWhitespace(bytes[index]) { index += 1 }
    }

    private static func skipToken(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, ASCII.isTokenByte(bytes[index]) { index += 1 }
    }

    /// Token bytes are ASCII, so lowercasing byte-wise is exact.
    private static func lowercasedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

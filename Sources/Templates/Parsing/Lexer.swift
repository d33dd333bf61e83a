/// Splits a template's UTF-8 bytes into ``Tag``s, following `{{=… …=}}` delimiter changes
/// (Mustache spec, `delimiters`). Every template starts with `{{` and `}}`.
struct Lexer {
    private let bytes: [UInt8]
    private let file: String?

    init(bytes: [UInt8], file: String?) {
        self.bytes = bytes
        self.file = file
    }

    /// All tags in source order.
    /// - Throws: ``TemplateError`` for an unclosed tag or a malformed delimiter change.
    func tags() throws(TemplateError) -> [Tag] {
        var open: [UInt8] = Array("{{".utf8)
        var close: [UInt8] = Array("}}".utf8)
        var tags: [Tag] = []
        var position = 0
        while let start = find(open, from: position) {
            var cursor = start + open.count
            let sigil: UInt8? = cursor < bytes.count ? bytes[cursor] : nil
            let kind: Tag.Kind
            var closer = close
            switch sigil {
            case UInt8(ascii: "{"):
                kind = .raw
                closer = [UInt8(ascii: "}")] + close
            case UInt8(ascii: "&"): kind = .raw
            case UInt8(ascii: "#"): kind = .section
            case UInt8(ascii: "^"): kind = .inverted
            case UInt8(ascii: "/"): kind = .close
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: ">"): kind = .partial
            case UInt8(ascii: "<"): kind = .parent
            case UInt8(ascii: "$"): kind = .block
            case UInt8(ascii: "="):
                kind = .setDelimiters
                closer = [UInt8(ascii: "=")] + close
            default: kind = .escaped
            }
            if kind != .escaped { cursor += 1 }
            // A tag running into the next opening delimiter lost its own closing delimiter
            // (`{{name}` … `{{/x}}`); comments may contain anything.
            guard let closerStart = find(closer, from: cursor),
                kind == .comment || find(open, from: cursor, before: closerStart) == nil
            else {
                throw error(at: start, "expected '\(String(decoding: closer, as: UTF8.self))' to close tag")
            }
            let content = trimmed(cursor..<closerStart)
            let end = closerStart + closer.count
            let expectedClose =
                String(decoding: open, as: UTF8.self) + "/" + content.text
                + String(decoding: close, as: UTF8.self)
            if kind == .setDelimiters {
                (open, close) = try delimiters(content.text, at: content.start)
            }
            tags.append(
                Tag(
                    kind: kind, start: start, end: end, content: content.text, contentStart: content.start,
                    expectedClose: expectedClose))
            position = end
        }
        return tags
    }

    private func delimiters(_ content: String, at offset: Int) throws(TemplateError) -> ([UInt8], [UInt8]) {
        let parts = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard parts.count == 2, !parts.contains(where: { $0.contains("=") }) else {
            throw error(
                at: offset,
                "expected two delimiters separated by whitespace, without '=', as in '{{=<% %>=}}'")
        }
        return (Array(parts[0].utf8), Array(parts[1].utf8))
    }

    private func trimmed(_ range: Range<Int>) -> (text: String, start: Int) {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, Self.isSpace(bytes[lower]) { lower += 1 }
        while upper > lower, Self.isSpace(bytes[upper - 1]) { upper -= 1 }
        return (String(decoding: bytes[lower..<upper], as: UTF8.self), lower)
    }

    private func find(_ needle: [UInt8], from start: Int, before limit: Int? = nil) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        let last = min(bytes.count, limit ?? bytes.count) - needle.count
        while index <= last {
            if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Whitespace inside tags: space, tab, CR, LF.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func error(at offset: Int, _ message: String) -> TemplateError {
        let location = SourceLocation(bytes: bytes, offset: offset)
        return TemplateError(file: file, line: location.line, column: location.column, message: message)
    }
}

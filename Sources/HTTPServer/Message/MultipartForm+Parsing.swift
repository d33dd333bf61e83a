extension MultipartForm {
    /// What follows the `--boundary` of a match.
    private enum DelimiterKind {
        /// `--boundary` transport-padding CRLF: a part starts at `partStart`.
        case open(partStart: Int)
        /// `--boundary--`: the close delimiter; the rest is the epilogue, ignored.
        case close
    }

    /// Splits `body` into parts (RFC 2046 §5.1.1):
    /// `[preamble CRLF] dash-boundary padding CRLF body-part *(CRLF dash-boundary padding CRLF
    /// body-part) CRLF dash-boundary "--" [padding CRLF epilogue]`.
    ///
    /// `--boundary` followed by anything but `--` or padding and CRLF is not a delimiter line,
    /// so it stays data; a body without a close delimiter is malformed.
    /// The data of a part larger than `leavingInPlaceOver` bytes is not copied: the part names
    /// where it is (``Part/spooledData``).
    static func parseParts(
        _ body: UnsafeBufferPointer<UInt8>, boundary: [UInt8], leavingInPlaceOver inPlace: Int = .max
    ) throws(MultipartError) -> [Part] {
        let searcher = DelimiterSearcher(pattern: [ASCII.cr, ASCII.lf, UInt8(ascii: "-"), UInt8(ascii: "-")] + boundary)
        // The delimiter pattern starts with CRLF; the first delimiter may start the body without one.
        let dashBoundaryLength = boundary.count + 2
        var kind: DelimiterKind
        if body.count >= dashBoundaryLength, searcher.matchesDashBoundary(body, at: 0),
            let first = delimiterKind(body, after: dashBoundaryLength)
        {
            kind = first
        } else {
            guard let first = nextDelimiter(body, from: 0, searcher: searcher) else {
                throw .malformed(reason: "no boundary delimiter")
            }
            kind = first.kind
        }
        var parts: [Part] = []
        while case .open(let partStart) = kind {
            guard let next = nextDelimiter(body, from: partStart, searcher: searcher) else {
                throw .malformed(reason: "no close delimiter")
            }
            guard parts.count < partLimit else { throw .tooManyParts }
            var part = try parsePart(UnsafeBufferPointer(rebasing: body[partStart..<next.start]), copyingAtMost: inPlace)
            if let data = part.spooledData { part.spooledData = partStart + data.lowerBound..<partStart + data.upperBound }
            parts.append(part)
            kind = next.kind
        }
        return parts
    }

    /// The first real delimiter at or after `start`: where its CRLF begins and what it opens.
    private static func nextDelimiter(
        _ body: UnsafeBufferPointer<UInt8>, from start: Int, searcher: DelimiterSearcher
    ) -> (start: Int, kind: DelimiterKind)? {
        var from = start
        while let match = searcher.firstMatch(in: body, from: from) {
            if let kind = delimiterKind(body, after: match + searcher.pattern.count) { return (match, kind) }
            from = match + 1
        }
        return nil
    }

    /// Classifies the bytes after a `--boundary`, or nil if they make it no delimiter line.
    private static func delimiterKind(_ body: UnsafeBufferPointer<UInt8>, after index: Int) -> DelimiterKind? {
        if index + 1 < body.count, body[index] == UInt8(ascii: "-"), body[index + 1] == UInt8(ascii: "-") {
            return .close
        }
        var cursor = index
        while cursor < body.count, ASCII.isOptionalWhitespace(body[cursor]) { cursor += 1 }
        guard cursor + 1 < body.count, body[cursor] == ASCII.cr, body[cursor + 1] == ASCII.lf else { return nil }
        return .open(partStart: cursor + 2)
    }

    /// One body part: header lines up to a blank line (or to the end: a part may have no data),
    /// then data. Field lines follow RFC 9112 §5 as in the request parser: CRLF endings, no
    /// obs-fold, no whitespace before the colon, no controls in values.
    private static func parsePart(_ content: UnsafeBufferPointer<UInt8>, copyingAtMost inPlace: Int) throws(MultipartError) -> Part {
        var headers = HTTPHeaders()
        var headerBytes = 0
        var lineStart = 0
        var dataStart = content.count
        while lineStart < content.count {
            // Scan no further than the limit allows, so a part without a blank line costs O(limit).
            let scanEnd = min(content.count, lineStart + headerSectionLimit - headerBytes)
            var lineEnd = lineStart
            while lineEnd < scanEnd, content[lineEnd] != ASCII.cr, content[lineEnd] != ASCII.lf { lineEnd += 1 }
            headerBytes += lineEnd - lineStart + 2
            if headerBytes > headerSectionLimit {
                throw .malformed(reason: "part header section over \(headerSectionLimit) bytes")
            }
            guard lineEnd < content.count else { throw .malformed(reason: "unterminated part header line") }
            guard content[lineEnd] == ASCII.cr, lineEnd + 1 < content.count, content[lineEnd + 1] == ASCII.lf else {
                throw .malformed(reason: "part header line not ended by CRLF")
            }
            let line = UnsafeBufferPointer(rebasing: content[lineStart..<lineEnd])
            if line.isEmpty {
                dataStart = lineEnd + 2
                break
            }
            guard headers.count < headerFieldLimit else {
                throw .malformed(reason: "more than \(headerFieldLimit) part header fields")
            }
            let (name, value) = try parseFieldLine(line)
            headers.add(name: name, value: value)
            lineStart = lineEnd + 2
        }
        let dispositions = headers.values(for: "Content-Disposition")
        guard dispositions.count == 1, let disposition = HeaderParameters(dispositions[0]) else {
            throw .malformed(reason: dispositions.isEmpty ? "part without Content-Disposition" : "malformed Content-Disposition")
        }
        guard disposition.value == "form-data" else { throw .malformed(reason: "Content-Disposition is not form-data") }
        guard disposition.count(of: "name") == 1, disposition.count(of: "filename") <= 1,
            let name = disposition["name"], !name.isEmpty
        else {
            throw .malformed(reason: "part without exactly one non-empty name")
        }
        let contentTypes = headers.values(for: "Content-Type")
        guard contentTypes.count <= 1 else { throw .malformed(reason: "repeated part Content-Type") }
        var part = Part(name: name, filename: disposition["filename"], contentType: contentTypes.first, headers: headers, body: [])
        if content.count - dataStart > inPlace {
            part.spooledData = dataStart..<content.count
        } else {
            part.body = Array(UnsafeBufferPointer(rebasing: content[dataStart...]))
        }
        return part
    }

    /// `field-name ":" OWS field-value OWS` with a token name and no controls in the value.
    private static func parseFieldLine(_ line: UnsafeBufferPointer<UInt8>) throws(MultipartError) -> (String, String) {
        if ASCII.isOptionalWhitespace(line[0]) { throw .malformed(reason: "obsolete line folding in a part header") }
        guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else {
            throw .malformed(reason: "part header line without a colon")
        }
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        guard name.allSatisfy(ASCII.isTokenByte) else { throw .malformed(reason: "malformed part header name") }
        var start = colon + 1
        var end = line.count
        while start < end, ASCII.isOptionalWhitespace(line[start]) { start += 1 }
        while end > start, ASCII.isOptionalWhitespace(line[end - 1]) { end -= 1 }
        let value = UnsafeBufferPointer(rebasing: line[start..<end])
        guard value.allSatisfy(ASCII.isFieldValueByte) else { throw .malformed(reason: "invalid byte in a part header value") }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }
}

/// Boyer–Moore–Horspool search for `CRLF--boundary`: on data that does not resemble the
/// pattern it inspects about one byte in `pattern.count`.
///
/// A window whose last byte fits is compared from the front. The pattern holds its only CR at
/// the start, so a window that matches k leading bytes has no CR in them, and the windows that
/// cost more than a step are at least that far apart: the search stays linear even for data
/// made to resemble the boundary (a run of `a` against a boundary of 70 `a`s).
private struct DelimiterSearcher {
    /// CR LF `-` `-` boundary.
    let pattern: [UInt8]
    /// How far the window may move when its last byte is the table index.
    private var shift: [Int]

    init(pattern: [UInt8]) {
        self.pattern = pattern
        shift = Array(repeating: pattern.count, count: 256)
        for index in 0..<(pattern.count - 1) { shift[Int(pattern[index])] = pattern.count - 1 - index }
    }

    /// The first index at or after `start` where the whole pattern occurs, or nil.
    func firstMatch(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let length = pattern.count
        return pattern.withUnsafeBufferPointer { pattern in
            shift.withUnsafeBufferPointer { shift in
                let lastByte = pattern[length - 1]
                var index = start
                while index + length <= bytes.count {
                    let last = bytes[index + length - 1]
                    if last == lastByte {
                        var offset = 0
                        while offset < length - 1, bytes[index + offset] == pattern[offset] { offset += 1 }
                        if offset == length - 1 { return index }
                    }
                    index += shift[Int(last)]
                }
                return nil
            }
        }
    }

    /// Whether `--boundary` (the pattern without its CRLF) starts at `index`.
    func matchesDashBoundary(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let length = pattern.count - 2
        guard index + length <= bytes.count else { return false }
        for offset in 0..<length where bytes[index + offset] != pattern[offset + 2] { return false }
        return true
    }
}

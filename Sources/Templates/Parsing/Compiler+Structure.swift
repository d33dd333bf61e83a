extension Compiler {
    /// Rejects empty tag names, names with whitespace, and malformed dotted names.
    mutating func validateNames() throws(TemplateError) {
        for tag in tags {
            switch tag.kind {
            case .comment, .setDelimiters:
                continue
            case .escaped, .raw, .section, .inverted:
                try requireName(tag)
                guard Name(tag.content) != nil else {
                    throw error(at: tag.contentStart, "invalid name '\(tag.content)'")
                }
            case .partial, .parent:
                try requireName(tag)
                if tag.content.hasPrefix("*") {
                    let dynamic = String(tag.content.dropFirst()).trimmingSpaces()
                    guard Name(dynamic) != nil else {
                        throw error(at: tag.contentStart, "expected a name after '*' in '\(tag.content)'")
                    }
                } else {
                    try requireNoWhitespace(tag)
                }
            case .block, .close:
                try requireName(tag)
                try requireNoWhitespace(tag)
            }
        }
    }

    private func requireName(_ tag: Tag) throws(TemplateError) {
        guard !tag.content.isEmpty else { throw error(at: tag.contentStart, "expected a name in tag") }
    }

    private func requireNoWhitespace(_ tag: Tag) throws(TemplateError) {
        guard !tag.content.contains(where: { $0.isWhitespace }) else {
            throw error(at: tag.contentStart, "invalid name '\(tag.content)'")
        }
    }

    /// Pairs every section, inverted section, parent and block with its closing tag.
    mutating func matchRegions() throws(TemplateError) {
        partner = Array(repeating: -1, count: tags.count)
        var open: [Int] = []
        for (index, tag) in tags.enumerated() {
            if tag.kind.opensRegion {
                open.append(index)
            } else if tag.kind == .close {
                let found = String(decoding: bytes[tag.start..<tag.end], as: UTF8.self)
                guard let opener = open.popLast() else {
                    throw error(at: tag.start, "unexpected '\(found)': no section is open")
                }
                guard closes(tags[opener], with: tag) else {
                    let location = SourceLocation(bytes: bytes, offset: tags[opener].start)
                    throw error(
                        at: tag.start,
                        "expected '\(tags[opener].expectedClose)' to close \(describe(tags[opener])) opened at "
                            + "\(location.line):\(location.column), found '\(found)'")
                }
                partner[opener] = index
                partner[index] = opener
            }
        }
        if let opener = open.last {
            throw error(
                at: tags[opener].start,
                "unclosed \(describe(tags[opener])): expected '\(tags[opener].expectedClose)' before the end of the template"
            )
        }
    }

    /// Whether `close` ends `opener`: same content, or for a dynamic `{{<*name}}` also `{{/name}}`.
    private func closes(_ opener: Tag, with close: Tag) -> Bool {
        if opener.content == close.content { return true }
        guard opener.kind == .parent, opener.content.hasPrefix("*") else { return false }
        return String(opener.content.dropFirst()).trimmingSpaces() == close.content
    }

    private func describe(_ tag: Tag) -> String {
        switch tag.kind {
        case .inverted: "inverted section '\(tag.content)'"
        case .parent: "parent '\(tag.content)'"
        case .block: "block '\(tag.content)'"
        default: "section '\(tag.content)'"
        }
    }

    /// Applies the standalone-line rules (Mustache spec: a tag other than an interpolation, alone
    /// on its line with only spaces and tabs around it, removes that whole line), plus the
    /// `~inheritance` pairs that count as standalone together: `{{<p}}{{/p}}`, `{{<p}}{{$b}}`,
    /// `{{/b}}{{/p}}` and `{{$b}}{{/b}}` (which keeps its newline).
    mutating func findStandaloneLines() {
        trimBefore = Array(repeating: nil, count: tags.count)
        trimAfter = Array(repeating: nil, count: tags.count)
        standalone = Array(repeating: false, count: tags.count)
        for (index, tag) in tags.enumerated() where tag.kind.canStandAlone {
            if let lineStart = whitespaceLineStart(before: tag.start), let lineEnd = whitespaceLineEnd(after: tag.end) {
                trimBefore[index] = lineStart
                trimAfter[index] = lineEnd
                standalone[index] = true
            }
        }
        for index in tags.indices.dropLast() where tags[index].end == tags[index + 1].start {
            let first = tags[index]
            let second = tags[index + 1]
            guard let lineStart = whitespaceLineStart(before: first.start),
                let lineEnd = whitespaceLineEnd(after: second.end)
            else { continue }
            switch (first.kind, second.kind) {
            case (.parent, .close) where partner[index] == index + 1,
                (.parent, .block),
                (.close, .close) where tags[partner[index]].kind == .block && tags[partner[index + 1]].kind == .parent:
                trimBefore[index] = lineStart
                trimAfter[index + 1] = lineEnd
                standalone[index] = true
            case (.block, .close) where partner[index] == index + 1:
                trimBefore[index] = lineStart
                standalone[index] = true
            default:
                continue
            }
        }
    }

    /// The start of the line holding `offset` when only spaces and tabs precede `offset` on it.
    private func whitespaceLineStart(before offset: Int) -> Int? {
        var position = offset
        while position > 0 {
            let byte = bytes[position - 1]
            if byte == 0x0A { return position }
            guard Self.isBlank(byte) else { return nil }
            position -= 1
        }
        return 0
    }

    /// The offset just past the line's end (`\n`, `\r\n`, or the end of the template) when only
    /// spaces and tabs follow `offset` on its line.
    private func whitespaceLineEnd(after offset: Int) -> Int? {
        var position = offset
        while position < bytes.count, Self.isBlank(bytes[position]) { position += 1 }
        if position == bytes.count { return position }
        if bytes[position] == 0x0A { return position + 1 }
        if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { return position + 2 }
        return nil
    }
}

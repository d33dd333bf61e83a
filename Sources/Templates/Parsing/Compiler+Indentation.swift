extension Compiler {
    /// The indentation for a standalone partial or parent tag, relative to the enclosing block.
    func indentation(of tagIndex: Int) -> [UInt8]? {
        standalone[tagIndex] ? removingDedent(leadingWhitespace(of: tagIndex)) : nil
    }

    func removingDedent(_ indentation: [UInt8]) -> [UInt8] {
        var common = 0
        while common < dedent.count, common < indentation.count, dedent[common] == indentation[common] {
            common += 1
        }
        return Array(indentation[common...])
    }

    /// The whitespace between a tag's line start and the tag.
    func leadingWhitespace(of tagIndex: Int) -> [UInt8] {
        let start = tags[tagIndex].start
        var lineStart = start
        while lineStart > 0, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
        return Array(bytes[lineStart..<start])
    }

    /// The longest run of spaces and tabs that starts every non-blank line of `range`
    /// (Mustache spec, `~inheritance`: "Block indentation is removed at the site of definition").
    func commonIndentation(_ range: Range<Int>) -> [UInt8] {
        var common: [UInt8]?
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            var lineEnd = lineStart
            while lineEnd < range.upperBound, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            var indentEnd = lineStart
            while indentEnd < lineEnd, Self.isBlank(bytes[indentEnd]) { indentEnd += 1 }
            let isBlankLine = indentEnd == lineEnd || (indentEnd == lineEnd - 1 && bytes[indentEnd] == 0x0D)
            if !isBlankLine {
                let indentation = bytes[lineStart..<indentEnd]
                if let current = common {
                    common = Array(zip(current, indentation).prefix(while: { $0 == $1 }).map(\.0))
                } else {
                    common = Array(indentation)
                }
            }
            lineStart = lineEnd + 1
        }
        return common ?? []
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

/// Turns one template's text into a ``Program``: lexes it, checks names and the nesting of
/// regions, applies the spec's standalone-line rules, and emits flat instructions.
///
/// Partial and parent names that are not dynamic are resolved against `library` (name → program
/// index) here, so rendering never looks them up.
struct Compiler {
    /// One open region while emitting.
    private enum Container {
        case section(instruction: Int)
        case block(instruction: Int, savedDedent: [UInt8])
        case argument(call: Int, name: String, start: Int, startsMidLine: Bool, savedDedent: [UInt8])
        case parent(instruction: Int, call: Int)
    }

    let bytes: [UInt8]
    let file: String?
    private let name: String
    private let index: Int
    private let library: [String: Int]

    var tags: [Tag] = []
    /// For each tag opening or closing a region, the index of the other end; -1 otherwise.
    var partner: [Int] = []
    /// Where the text before a standalone tag is cut (its line's start).
    var trimBefore: [Int?] = []
    /// Where text resumes after a standalone tag (just past its line's newline).
    var trimAfter: [Int?] = []
    /// Whether a partial, parent or block tag is standalone for indentation purposes.
    var standalone: [Bool] = []

    private var code: [Instruction] = []
    private var text: [UInt8] = []
    private var lineStarts: [Int] = []
    private var names: [Name] = []
    private var nameIndexes: [String: Int] = [:]
    private var calls: [Call] = []
    private var unresolved: [TemplateError] = []
    private var arguments: [[BlockArgument]] = []
    private var blocks: [BlockSite] = []
    private var containers: [Container] = []
    /// Whether the last instruction is a text instruction that new text may extend.
    private var textIsOpen = false
    /// Leading whitespace removed from each line inside the innermost standalone block.
    var dedent: [UInt8] = []

    /// Compiles `source`, the template `name` at position `index` of a library whose templates are
    /// `library`. `file` names the template in errors.
    static func compile(
        source: String, name: String, file: String?, index: Int, library: [String: Int]
    ) throws(TemplateError) -> Program {
        var compiler = Compiler(bytes: Array(source.utf8), file: file, name: name, index: index, library: library)
        return try compiler.run()
    }

    private init(bytes: [UInt8], file: String?, name: String, index: Int, library: [String: Int]) {
        self.bytes = bytes
        self.file = file
        self.name = name
        self.index = index
        self.library = library
    }

    private mutating func run() throws(TemplateError) -> Program {
        tags = try Lexer(bytes: bytes, file: file).tags()
        try validateNames()
        try matchRegions()
        findStandaloneLines()
        try emit()
        return Program(
            name: name, index: index, code: code, text: text, lineStarts: lineStarts, names: names,
            calls: calls, blocks: blocks, arguments: arguments, unresolved: unresolved)
    }

    func error(at offset: Int, _ message: String) -> TemplateError {
        let location = SourceLocation(bytes: bytes, offset: offset)
        return TemplateError(file: file, line: location.line, column: location.column, message: message)
    }

    // MARK: Emission

    private mutating func emit() throws(TemplateError) {
        var tagIndex = 0
        var gapStart = 0
        while tagIndex < tags.count {
            let tag = tags[tagIndex]
            let cut = trimBefore[tagIndex]
            let marksLine = cut == nil && isLineStart(tag.start)
            // A block's closing tag at column 0 starts a line of the enclosing template, not of
            // the block's content: its line start goes after the block.
            let closesBlock = tag.kind == .close && tags[partner[tagIndex]].kind == .block
            emitText(gapStart..<(cut ?? tag.start), markLineAtEnd: marksLine && !closesBlock)
            let next = try emitTag(tagIndex)
            if marksLine && closesBlock { emitText(tag.start..<tag.start, markLineAtEnd: true) }
            gapStart = trimAfter[next - 1] ?? tags[next - 1].end
            tagIndex = next
        }
        emitText(gapStart..<bytes.count, markLineAtEnd: false)
    }

    /// Text directly inside a parent tag (outside its blocks) is ignored (Mustache spec,
    /// `~inheritance`: "Text inside parent").
    private var isInsideParent: Bool {
        if case .parent = containers.last { return true }
        return false
    }

    private func isLineStart(_ offset: Int) -> Bool {
        offset < bytes.count && (offset == 0 || bytes[offset - 1] == 0x0A)
    }

    private mutating func emitText(_ range: Range<Int>, markLineAtEnd: Bool) {
        guard !isInsideParent else { return }
        let textStart = text.count
        let lineStartsStart = lineStarts.count
        var offset = range.lowerBound
        while offset < range.upperBound {
            if isLineStart(offset) {
                var stripped = 0
                while stripped < dedent.count, offset < range.upperBound, bytes[offset] == dedent[stripped] {
                    stripped += 1
                    offset += 1
                }
                // Empty lines get no indentation (as mustache.js does), so none ends in spaces.
                if offset == range.upperBound || bytes[offset] != 0x0A {
                    lineStarts.append(text.count)
                }
            }
            var lineEnd = offset
            while lineEnd < range.upperBound {
                lineEnd += 1
                if bytes[lineEnd - 1] == 0x0A { break }
            }
            text.append(contentsOf: bytes[offset..<lineEnd])
            offset = lineEnd
        }
        if markLineAtEnd { lineStarts.append(text.count) }
        guard text.count > textStart || lineStarts.count > lineStartsStart else { return }
        if textIsOpen, let last = code.indices.last {
            code[last].b = Int32(text.count)
            code[last].d = Int32(lineStarts.count)
        } else {
            code.append(
                Instruction(
                    opcode: .text, a: Int32(textStart), b: Int32(text.count), c: Int32(lineStartsStart),
                    d: Int32(lineStarts.count)))
            textIsOpen = true
        }
    }

    private mutating func append(_ instruction: Instruction) {
        code.append(instruction)
        textIsOpen = false
    }

    /// Emits tag `tagIndex`; returns the index of the next tag to emit.
    private mutating func emitTag(_ tagIndex: Int) throws(TemplateError) -> Int {
        let tag = tags[tagIndex]
        switch tag.kind {
        case .comment, .setDelimiters:
            break
        case .escaped, .raw:
            guard !isInsideParent else { break }
            append(Instruction(opcode: tag.kind == .escaped ? .escaped : .raw, a: nameIndex(tag.content)))
        case .section, .inverted:
            guard !isInsideParent else { return partner[tagIndex] + 1 }
            containers.append(.section(instruction: code.count))
            append(Instruction(opcode: tag.kind == .section ? .section : .inverted, a: nameIndex(tag.content)))
        case .partial:
            guard !isInsideParent else { break }
            calls.append(Call(target: target(of: tagIndex), indentation: indentation(of: tagIndex)))
            arguments.append([])
            append(Instruction(opcode: .partial, a: Int32(calls.count - 1)))
        case .parent:
            guard !isInsideParent else { return partner[tagIndex] + 1 }
            calls.append(Call(target: target(of: tagIndex), indentation: indentation(of: tagIndex)))
            arguments.append([])
            containers.append(.parent(instruction: code.count, call: calls.count - 1))
            append(Instruction(opcode: .parent, a: Int32(calls.count - 1)))
        case .block:
            emitBlock(tagIndex)
        case .close:
            closeRegion()
        }
        return tagIndex + 1
    }

    private mutating func emitBlock(_ tagIndex: Int) {
        let tag = tags[tagIndex]
        let close = tags[partner[tagIndex]]
        let bodyIsStandalone = trimAfter[tagIndex] != nil
        var bodyDedent = dedent
        if bodyIsStandalone, let bodyStart = trimAfter[tagIndex] {
            bodyDedent = commonIndentation(bodyStart..<(trimBefore[partner[tagIndex]] ?? close.start))
        }
        if case .parent(_, let call) = containers.last {
            containers.append(
                .argument(
                    call: call, name: tag.content, start: code.count,
                    startsMidLine: !bodyIsStandalone, savedDedent: dedent))
        } else {
            var siteIndentation: [UInt8]?
            if standalone[tagIndex] {
                let own = bodyDedent.isEmpty || !bodyIsStandalone ? leadingWhitespace(of: tagIndex) : bodyDedent
                siteIndentation = removingDedent(own)
            }
            blocks.append(
                BlockSite(name: tag.content, indentation: siteIndentation, startsMidLine: !bodyIsStandalone))
            containers.append(.block(instruction: code.count, savedDedent: dedent))
            append(Instruction(opcode: .block, a: Int32(blocks.count - 1)))
        }
        if bodyIsStandalone { dedent = bodyDedent }
        textIsOpen = false
    }

    private mutating func closeRegion() {
        guard let container = containers.popLast() else { return }
        switch container {
        case .section(let instruction), .parent(let instruction, _):
            code[instruction].b = Int32(code.count)
        case .block(let instruction, let savedDedent):
            code[instruction].b = Int32(code.count)
            dedent = savedDedent
        case .argument(let call, let name, let start, let startsMidLine, let savedDedent):
            if !arguments[call].contains(where: { $0.name == name }) {
                arguments[call].append(
                    BlockArgument(name: name, program: index, start: start, end: code.count, startsMidLine: startsMidLine))
            }
            dedent = savedDedent
        }
        textIsOpen = false
    }

    private mutating func nameIndex(_ text: String) -> Int32 {
        if let existing = nameIndexes[text] { return Int32(existing) }
        // Validated by `validateNames()`.
        names.append(Name(text) ?? Name(".")!)
        nameIndexes[text] = names.count - 1
        return Int32(names.count - 1)
    }

    private mutating func target(of tagIndex: Int) -> Call.Target {
        let content = tags[tagIndex].content
        if content.hasPrefix("*") {
            let dynamic = String(content.dropFirst()).trimmingSpaces()
            return .dynamic(Int(nameIndex(dynamic)))
        }
        if let resolved = library[content] { return .resolved(resolved) }
        unresolved.append(error(at: tags[tagIndex].start, "no template named '\(content)'"))
        return .missing
    }

    /// Space or tab: the whitespace of standalone lines and indentation.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}

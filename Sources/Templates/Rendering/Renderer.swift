/// Executes ``Program``s into one UTF-8 buffer. One renderer serves one render call on one
/// thread; it owns all mutable render state:
/// - `output`: the page so far;
/// - `stack`: the context stack, top last (Mustache spec, `sections`);
/// - `frames`: block arguments of the parent tags being expanded, outermost first, so the
///   outermost argument for a name wins (`~inheritance`: "Top-level substitutions take
///   precedence");
/// - `indentation`: what to insert at each source line start of the text being rendered;
/// - `lowestResolved`: the lowest stack index a name resolved at since the innermost keyed
///   section began (-1 after a miss, a partial, a parent or a block), which decides whether that
///   section's bytes may be kept in the library's ``FragmentCache``.
struct Renderer {
    /// Sections, inverted sections, blocks, partials and parents together may nest this deep;
    /// deeper means runaway recursion (a partial or block including itself) or a hostile
    /// template, and is an error rather than a stack overflow that would take the server down.
    static let maximumDepth = 200

    private let programs: [Program]
    private let programIndexes: [String: Int]
    var output: [UInt8] = []
    private var stack: [TemplateValue]
    private var frames: [[BlockArgument]] = []
    private var indentation: [UInt8] = []
    private var depth = 0
    private let fragments: FragmentCache
    private var lowestResolved = Int.max

    init(
        programs: [Program], programIndexes: [String: Int], fragments: FragmentCache, context: TemplateValue, capacity: Int
    ) {
        self.programs = programs
        self.programIndexes = programIndexes
        self.fragments = fragments
        stack = [context]
        stack.reserveCapacity(16)
        output.reserveCapacity(capacity)
    }

    /// Renders the whole of `program`.
    mutating func render(_ program: Program) throws(TemplateError) {
        try run(program, from: 0, to: program.code.count)
    }

    private mutating func run(_ program: Program, from start: Int, to end: Int) throws(TemplateError) {
        guard depth < Self.maximumDepth else {
            throw TemplateError(
                file: nil, line: 0, column: 0,
                message: "sections, blocks and partials nested more than \(Self.maximumDepth) deep in '\(program.name)' (recursion?)")
        }
        depth += 1
        defer { depth -= 1 }
        var counter = start
        while counter < end {
            let instruction = program.code[counter]
            switch instruction.opcode {
            case .text:
                appendText(program, instruction)
                counter += 1
            case .escaped:
                if let value = lookup(program.names[Int(instruction.a)]) { appendEscaped(value) }
                counter += 1
            case .raw:
                if let value = lookup(program.names[Int(instruction.a)]) {
                    output.append(contentsOf: value.renderedText.utf8)
                }
                counter += 1
            case .section:
                let bodyEnd = Int(instruction.b)
                if let value = lookup(program.names[Int(instruction.a)]) {
                    try renderSection(value, program, from: counter + 1, to: bodyEnd)
                }
                counter = bodyEnd
            case .inverted:
                let bodyEnd = Int(instruction.b)
                if !(lookup(program.names[Int(instruction.a)])?.isTruthy ?? false) {
                    try run(program, from: counter + 1, to: bodyEnd)
                }
                counter = bodyEnd
            case .partial:
                lowestResolved = -1
                try expand(program, call: Int(instruction.a))
                counter += 1
            case .parent:
                lowestResolved = -1
                let call = Int(instruction.a)
                frames.append(program.arguments[call])
                try expand(program, call: call)
                frames.removeLast()
                counter = Int(instruction.b)
            case .block:
                lowestResolved = -1
                let bodyEnd = Int(instruction.b)
                try renderBlock(program.blocks[Int(instruction.a)], program, from: counter + 1, to: bodyEnd)
                counter = bodyEnd
            }
        }
    }

    private mutating func appendText(_ program: Program, _ instruction: Instruction) {
        let start = Int(instruction.a)
        let end = Int(instruction.b)
        if indentation.isEmpty || instruction.c == instruction.d {
            output.append(contentsOf: program.text[start..<end])
            return
        }
        var from = start
        for index in Int(instruction.c)..<Int(instruction.d) {
            let lineStart = program.lineStarts[index]
            output.append(contentsOf: program.text[from..<lineStart])
            output.append(contentsOf: indentation)
            from = lineStart
        }
        output.append(contentsOf: program.text[from..<end])
    }

    private mutating func appendEscaped(_ value: TemplateValue) {
        switch value {
        case .string(let string): HTMLEscaping.append(string, to: &output)
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .null, .bool, .double, .list, .object, .custom: HTMLEscaping.append(value.renderedText, to: &output)
        }
    }

    private mutating func renderSection(
        _ value: TemplateValue, _ program: Program, from start: Int, to end: Int
    ) throws(TemplateError) {
        if case .list(let items) = value {
            for item in items {
                try renderItem(item, program, from: start, to: end)
            }
        } else if value.isTruthy {
            try renderItem(value, program, from: start, to: end)
        }
    }

    /// Renders a section body once with `item` on top of the stack; for an object with a
    /// ``TemplateObject/fragmentKey``, copies the bytes kept from an earlier render, or keeps
    /// these when they depended on the object alone (see ``FragmentCache``).
    private mutating func renderItem(_ item: TemplateValue, _ program: Program, from start: Int, to end: Int) throws(TemplateError) {
        guard indentation.isEmpty, case .custom(let object) = item, let objectKey = object.fragmentKey else {
            stack.append(item)
            try run(program, from: start, to: end)
            stack.removeLast()
            return
        }
        let key = FragmentCache.Key(program: program.index, start: start, object: objectKey)
        let lookup = fragments.lookup(key)
        if case .hit(let bytes) = lookup {
            output.append(contentsOf: bytes)
            return
        }
        let itemIndex = stack.count
        let outerLowest = lowestResolved
        let outputStart = output.count
        lowestResolved = Int.max
        stack.append(item)
        try run(program, from: start, to: end)
        stack.removeLast()
        if case .miss = lookup {
            if lowestResolved >= itemIndex {
                fragments.store(Array(output[outputStart...]), for: key)
            } else {
                fragments.markImpure(key)
            }
        }
        lowestResolved = min(outerLowest, lowestResolved)
    }

    /// Renders the partial or parent `program.calls[call]` at the current context.
    private mutating func expand(_ program: Program, call: Int) throws(TemplateError) {
        let details = program.calls[call]
        let target: Program
        switch details.target {
        case .resolved(let index):
            target = programs[index]
        case .missing:
            return
        case .dynamic(let nameIndex):
            guard let value = lookup(program.names[nameIndex]),
                let index = programIndexes[value.renderedText]
            else { return }
            target = programs[index]
        }
        if let added = details.indentation {
            let saved = indentation.count
            indentation.append(contentsOf: added)
            try render(target)
            indentation.removeSubrange(saved...)
        } else {
            let saved = indentation
            indentation = []
            try render(target)
            indentation = saved
        }
    }

    private mutating func renderBlock(
        _ site: BlockSite, _ program: Program, from start: Int, to end: Int
    ) throws(TemplateError) {
        var body = BlockArgument(name: site.name, program: program.index, start: start, end: end, startsMidLine: site.startsMidLine)
        var isOverridden = false
        if let argument = argument(named: site.name) {
            body = argument
            isOverridden = true
        }
        let bodyProgram = body.program == program.index ? program : programs[body.program]
        if let added = site.indentation {
            let saved = indentation.count
            indentation.append(contentsOf: added)
            if body.startsMidLine { output.append(contentsOf: indentation) }
            try run(bodyProgram, from: body.start, to: body.end)
            indentation.removeSubrange(saved...)
        } else if isOverridden {
            let saved = indentation
            indentation = []
            try run(bodyProgram, from: body.start, to: body.end)
            indentation = saved
        } else {
            try run(bodyProgram, from: body.start, to: body.end)
        }
    }

    private func argument(named name: String) -> BlockArgument? {
        for frame in frames {
            for argument in frame where argument.name == name {
                return argument
            }
        }
        return nil
    }

    /// Resolves a name against the context stack (Mustache spec, `interpolation`: the first key
    /// is looked up from the top of the stack down; the others only in the value found).
    private mutating func lookup(_ name: Name) -> TemplateValue? {
        let keys = name.keys
        guard let first = keys.first else {
            lowestResolved = min(lowestResolved, stack.count - 1)
            return stack.last
        }
        var found: TemplateValue?
        var index = stack.count - 1
        while index >= 0 {
            if let value = stack[index].member(first) {
                found = value
                break
            }
            index -= 1
        }
        lowestResolved = min(lowestResolved, index)
        guard var current = found else { return nil }
        var keyIndex = 1
        while keyIndex < keys.count {
            guard let value = current.member(keys[keyIndex]) else { return nil }
            current = value
            keyIndex += 1
        }
        return current
    }
}

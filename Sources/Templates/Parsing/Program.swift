/// One compiled template: a flat instruction array over side tables, immutable once built and
/// shared by every render on every thread.
///
/// Layout (built by ``Compiler``, run by ``Renderer``):
/// - `text` holds all static text, already cut by the standalone-line rules and dedented for
///   blocks; `lineStarts` holds offsets into it where a new source line begins, so a partial or
///   block rendered with indentation can insert it there (Mustache spec, `partials`: "prepended
///   to each line"; `~inheritance`: block reindentation).
/// - Regions (sections, blocks, parents) are instruction ranges: the opening instruction holds
///   the index just past its region, and the body follows it.
/// - Names are split into keys, and static partial names resolved to program indexes, at compile
///   time.
final class Program: Sendable {
    /// The template's name in its library.
    let name: String
    /// This program's index in its library's program array.
    let index: Int
    /// The instructions; a render runs `code[0..<code.count]`.
    let code: [Instruction]
    /// All static text, UTF-8.
    let text: [UInt8]
    /// Offsets into `text` where source lines begin, in increasing order.
    let lineStarts: [Int]
    /// Names used by interpolations, sections and dynamic partials.
    let names: [Name]
    /// Partial and parent calls.
    let calls: [Call]
    /// Block sites (blocks outside a parent tag).
    let blocks: [BlockSite]
    /// Block arguments of each parent call, by call index (empty for partials).
    let arguments: [[BlockArgument]]
    /// Where a static partial or parent names a template the library does not hold.
    let unresolved: [TemplateError]

    init(
        name: String, index: Int, code: [Instruction], text: [UInt8], lineStarts: [Int], names: [Name],
        calls: [Call], blocks: [BlockSite], arguments: [[BlockArgument]], unresolved: [TemplateError]
    ) {
        self.name = name
        self.index = index
        self.code = code
        self.text = text
        self.lineStarts = lineStarts
        self.names = names
        self.calls = calls
        self.blocks = blocks
        self.arguments = arguments
        self.unresolved = unresolved
    }
}

/// One step of a ``Program``; operands index the program's side tables.
struct Instruction: Sendable {
    /// What the instruction does; see each case for its operands.
    enum Opcode: UInt8, Sendable {
        /// Copy `text[a..<b]`, with `lineStarts[c..<d]` marking where indentation goes.
        case text
        /// Interpolate `names[a]`, HTML-escaped.
        case escaped
        /// Interpolate `names[a]` verbatim.
        case raw
        /// Section over `names[a]`; body is the next instruction up to `b`.
        case section
        /// Inverted section over `names[a]`; body up to `b`.
        case inverted
        /// Partial `calls[a]`.
        case partial
        /// Parent `calls[a]` with `arguments[a]`; its block arguments' bodies lie before `b`.
        case parent
        /// Block site `blocks[a]`; its default body runs up to `b`.
        case block
    }

    var opcode: Opcode
    var a: Int32 = 0
    var b: Int32 = 0
    var c: Int32 = 0
    var d: Int32 = 0
}

/// A 1-based line and column (in Unicode scalars) of a byte offset in UTF-8 text, computed only
/// when an error is reported.
struct SourceLocation: Equatable {
    /// 1-based line number.
    var line: Int
    /// 1-based column, counting Unicode scalars (UTF-8 lead bytes) from the line's start.
    var column: Int

    init(bytes: [UInt8], offset: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.line = line
        self.column = column
    }
}

/// A template that does not parse, or a render that cannot proceed (unknown template name,
/// partials nested too deeply).
///
/// Parse errors carry the file (or template name, for templates given as strings), a 1-based line
/// and a 1-based column counted in Unicode scalars, and say what was expected. `description`
/// never includes context values.
package struct TemplateError: Error, CustomStringConvertible, Equatable {
    /// The template file's path, or the template's name when it did not come from a file; `nil`
    /// when the error is not about one template's text.
    package var file: String?
    /// 1-based line of the error, or 0 when it has no position.
    package var line: Int
    /// 1-based column (in Unicode scalars) of the error, or 0 when it has no position.
    package var column: Int
    /// What went wrong, e.g. `expected '}}' to close tag`.
    package var message: String

    /// An error at a position (or at none, with `line` and `column` 0).
    package init(file: String?, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `FILE:LINE:COLUMN: MESSAGE`, leaving out the parts that are unknown.
    package var description: String {
        var prefix = ""
        if let file { prefix = file + ":" }
        if line > 0 { prefix += "\(line):\(column):" }
        return prefix.isEmpty ? message : prefix + " " + message
    }
}

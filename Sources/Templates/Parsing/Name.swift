/// A tag's name split into keys at compile time: `.` is the implicit iterator (no keys),
/// `a.b.c` is `["a", "b", "c"]` (Mustache spec, `interpolation`: dotted names).
struct Name: Sendable {
    /// The dotted parts; empty for the implicit iterator `.`.
    let keys: [String]

    /// Whether this is `.`, the value on top of the context stack.
    var isImplicit: Bool { keys.isEmpty }

    /// Splits `text`, or returns `nil` when it is not a valid name (empty part, whitespace).
    init?(_ text: String) {
        if text == "." {
            keys = []
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty,
            parts.allSatisfy({ !$0.isEmpty && !$0.contains(where: { $0.isWhitespace }) })
        else { return nil }
        keys = parts.map(String.init)
    }
}

/// A block tag outside any parent tag: a parameter of this template with default content.
struct BlockSite: Sendable {
    /// The parameter's name.
    let name: String
    /// Indentation for the content when the site is standalone (Mustache spec, `~inheritance`:
    /// "Block indentation is … added at the site of expansion"); `nil` inline.
    let indentation: [UInt8]?
    /// Whether the default body starts mid-line (its opening tag was not standalone).
    let startsMidLine: Bool
}

/// A block tag directly inside a parent tag: an argument replacing the parent's block of the
/// same name. Its body lives in the program that holds the parent tag.
struct BlockArgument: Sendable {
    /// The parameter it overrides.
    let name: String
    /// The program whose code holds the body.
    let program: Int
    /// First instruction of the body.
    let start: Int
    /// Index just past the body.
    let end: Int
    /// Whether the body starts mid-line (its opening tag was not standalone).
    let startsMidLine: Bool
}

/// A partial (`{{>name}}`) or parent (`{{<name}}`) tag.
struct Call: Sendable {
    /// Which template to expand.
    enum Target: Sendable {
        /// A static name found in the library at compile time.
        case resolved(Int)
        /// A static name the library does not hold: renders as the empty string.
        case missing
        /// `*name`: the value of `names[index]` names the template at render time
        /// (Mustache spec, `~dynamic-names`).
        case dynamic(Int)
    }

    /// Which template to expand.
    let target: Target
    /// The indentation to add to each line when the tag is standalone; `nil` when it is not,
    /// in which case the template renders with no indentation at all.
    let indentation: [UInt8]?
}

/// Where a person was going when the sign-in page interrupted them: a local path (and query),
/// never another site.
///
/// Refused: anything not starting with a single `/` (so `//host` and schemes), a backslash
/// anywhere (`/\host` is `//host` to browsers), control characters and spaces, and percent-encoded
/// forms of these (`/%2F%2Fhost`, `/%5Chost`). A valid value is still only a hint: the root
/// coordinator redirects to the route it parses to, built from the route, so a path no route
/// claims leads home.
package struct ReturnPath: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    /// Longest accepted value, far above any route's path.
    static let maximumLength = 2048

    package init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength, text.utf8.first == UInt8(ascii: "/"), Self.isSafe(text) else { return nil }
        // The same rules once more on the decoded form, so an encoded `//` or `\` cannot pass.
        guard let decoded = Self.fullyDecoded(text), Self.isSafe(decoded) else { return nil }
        rawValue = text
    }

    package var description: String { rawValue }

    /// No second leading slash, no backslash, no control character or space.
    private static func isSafe(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }
    }

    /// `text` percent-decoded until no escape is left (double encoding), nil for a bad escape,
    /// bytes that are not UTF-8, or escapes nested deeper than four times.
    private static func fullyDecoded(_ text: String) -> String? {
        var current = text
        for _ in 0..<4 {
            guard current.contains("%") else { return current }
            guard let next = PathSegments.percentDecoded(current) else { return nil }
            current = next
        }
        return current.contains("%") ? nil : current
    }
}

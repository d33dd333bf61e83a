import HTTPServer

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
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength, bytes.first == UInt8(ascii: "/"), Self.isSafe(bytes) else { return nil }
        // The same rules once more on the decoded form, so an encoded `//` or `\` cannot pass.
        guard let decoded = Self.percentDecoded(bytes), Self.isSafe(decoded) else { return nil }
        rawValue = text
    }

    package var description: String { rawValue }

    /// No second leading slash, no backslash, no control character or space.
    private static func isSafe(_ bytes: [UInt8]) -> Bool {
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }
    }

    /// `%XX` decoded repeatedly until nothing changes (double encoding), nil for a bad escape.
    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8]? {
        var current = bytes
        for _ in 0..<4 {
            guard current.contains(UInt8(ascii: "%")) else { return current }
            var out: [UInt8] = []
            var index = 0
            while index < current.count {
                if current[index] == UInt8(ascii: "%") {
                    guard index + 2 < current.count, let high = ASCII.hexValue(current[index + 1]),
                        let low = ASCII.hexValue(current[index + 2])
                    else { return nil }
                    out.append(UInt8(high << 4 | low))
                    index += 3
                } else {
                    out.append(current[index])
                    index += 1
                }
            }
            current = out
        }
        return current.contains(UInt8(ascii: "%")) ? nil : current
    }
}

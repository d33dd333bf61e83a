/// The cookies a test client keeps: set from `Set-Cookie` values (a `Max-Age=0` one deletes),
/// sent back as one `Cookie` header. Paths and expiry are ignored: every cookie of the app is `Path=/`.
package struct CookieJar: Sendable {
    package private(set) var values: [String: String] = [:]

    package init() {}

    package subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }

    package var isEmpty: Bool { values.isEmpty }

    /// The `Cookie` header value, names in order.
    package var header: String {
        values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// Keeps (or deletes) the cookie a `Set-Cookie` value describes.
    package mutating func store(setCookie value: String) {
        let pair = value.split(separator: ";", omittingEmptySubsequences: false)[0]
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        values[name] = value.contains("Max-Age=0") ? nil : String(pair[pair.index(after: equals)...])
    }
}

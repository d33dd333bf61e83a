/// `--database URL` (or `QUOTEBOOK_DATABASE`) as it was given: the URL's text and the flag or
/// variable it came from.
///
/// App keeps the text without reading it: the URL's syntax belongs to the backend that connects
/// to it, and App does not link the PostgreSQL client. The process reads it when it opens the
/// backend (Composition's `Backend(options:)`), before anything else starts, and a URL it cannot
/// use stops the process with a message naming ``source``. Neither ``description`` nor the mirror
/// (`dump`) shows the text, which may hold a password.
package struct DatabaseOption: Sendable, Equatable {
    /// The URL as typed, percent-escapes and password included.
    package let url: String
    /// `--database` or `QUOTEBOOK_DATABASE`: what a message about the URL names.
    package let source: String

    package init(url: String, source: String) {
        self.url = url
        self.source = source
    }
}

extension DatabaseOption: CustomStringConvertible {
    /// The source alone: the URL may hold a password.
    package var description: String { "the URL from \(source)" }
}

extension DatabaseOption: CustomReflectable {
    /// What `dump` and debuggers show: the source, never the URL.
    package var customMirror: Mirror {
        Mirror(self, children: ["source": source] as KeyValuePairs<String, Any>)
    }
}

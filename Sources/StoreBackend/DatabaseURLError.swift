/// The `--database` URL cannot be used: ``reason`` names the part at fault and never quotes the
/// URL, so never its password.
package struct DatabaseURLError: Error, CustomStringConvertible, Equatable {
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }

    package var description: String { "invalid database URL: \(reason)" }
}

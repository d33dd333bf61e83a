import Basics
import Foundation
import Synchronization

/// The address people reach the app at (`--public-url`), which every link in a mail starts
/// with. Never taken from a request's `Host` header: a forged one would put an attacker's host
/// into someone's reset link (OWASP Forgot Password Cheat Sheet, "URL tokens").
package struct PublicURL: Sendable, Equatable, CustomStringConvertible {
    /// `scheme://host[:port][/prefix]`, without a trailing slash.
    package let base: String
    /// Its host, which mail's `EHLO` greets the relay with.
    package let host: String

    /// `http://` or `https://`, a host, an optional port and path prefix; no query, fragment or
    /// credentials.
    package init?(_ text: String) {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil, components.user == nil, components.password == nil,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return nil }
        base = text
        self.host = host
    }

    package var description: String { base }

    /// The absolute address of `route`.
    package func link(to route: some Route) -> String { base + route.path }
}

/// Where mail links point: `--public-url`, or else the address the server listens on, known
/// only once it does (``listening(on:)``).
package final class MailLinks: Sendable {
    private let base: Mutex<PublicURL?>

    package init(publicURL: PublicURL?) {
        base = Mutex(publicURL)
    }

    /// Tells links the address the server listens on, unless `--public-url` named one.
    package func listening(on url: PublicURL) {
        base.withLock { if $0 == nil { $0 = url } }
    }

    /// The absolute address of `route` (a relative one before the server listens: tests).
    package func link(to route: some Route) -> String {
        base.withLock { $0 }.map { $0.link(to: route) } ?? route.path
    }
}

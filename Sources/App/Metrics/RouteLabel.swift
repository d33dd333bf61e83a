/// Which route a request took, without its values: the `route` label of
/// `quotebook_http_requests_total`.
///
/// Each route enum names its cases (`quotes_show` whatever the quote's id), in the same file as
/// the cases themselves; three more name requests no route claimed. So the label has a fixed set
/// of values, spelled only in code, and no user input ever reaches it
/// (prometheus.io/docs/practices/naming/#labels, on cardinality).
package struct RouteLabel: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The label's value: the route enum's area and case, in snake case.
    package let value: String

    /// From a literal: the label's text is the literal's, which costs no allocation to hold.
    package init(stringLiteral value: String) {
        self.value = value
    }

    package var description: String { value }

    /// A file of `Public/` (or a 405 for one asked for with another method).
    package static let staticFile: RouteLabel = "static_file"
    /// No route claimed the path (404), a route's path with another method (405), or a fault
    /// stopped the request before a route was chosen (500).
    package static let unmatched: RouteLabel = "unmatched"
    /// Never routed: the server refused it as malformed or over a limit (400, 408, 413, 431…), or
    /// its path could not be decoded into segments (404).
    package static let rejected: RouteLabel = "rejected"
}

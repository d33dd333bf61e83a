/// A request method token (RFC 9110 §9); compared case-sensitively, as the RFC says.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let patch = HTTPMethod(rawValue: "PATCH")
    package static let options = HTTPMethod(rawValue: "OPTIONS")
    package static let trace = HTTPMethod(rawValue: "TRACE")
    package static let connect = HTTPMethod(rawValue: "CONNECT")

    /// The methods this server implements, the commonest first; any other token is answered 501
    /// (RFC 9110 §9.1). A list, not a set: finding GET compares three bytes where a set hashed the
    /// token with SipHash on every request.
    package static let known: [HTTPMethod] = [.get, .post, .head, .put, .delete, .patch, .options, .trace, .connect]

    package var description: String { rawValue }
}

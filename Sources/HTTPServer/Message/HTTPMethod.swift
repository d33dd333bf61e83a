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

    /// The methods this server implements; any other token is answered 501 (RFC 9110 §9.1).
    package static let known: Set<HTTPMethod> = [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect]

    package var description: String { rawValue }
}

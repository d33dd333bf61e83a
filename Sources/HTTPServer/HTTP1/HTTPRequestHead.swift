/// How the body of a request is delimited (RFC 9112 §6.3).
package enum HTTPBodyFraming: Sendable, Equatable {
    /// No `Content-Length` and no `Transfer-Encoding`: the body is empty.
    case none
    /// `Content-Length: n`.
    case length(Int)
    /// `Transfer-Encoding: chunked` (RFC 9112 §7.1).
    case chunked
}

/// A request's line and fields once the header section is complete and valid, before its body.
package struct HTTPRequestHead: Sendable {
    /// The method token (RFC 9110 §9).
    package var method: HTTPMethod
    /// The request target as received (RFC 9112 §3.2).
    package var target: String
    /// HTTP/1.0 or HTTP/1.1.
    package var version: HTTPVersion
    /// The header fields in order, names as sent.
    package var headers: HTTPHeaders
    /// How the body is delimited (RFC 9112 §6.3).
    package var framing: HTTPBodyFraming
    /// `Expect: 100-continue` on an HTTP/1.1 request (RFC 9110 §10.1.1).
    package var expectsContinue: Bool

    /// Whether a body follows the header section.
    package var hasBody: Bool {
        switch framing {
        case .none, .length(0): false
        case .length, .chunked: true
        }
    }
}

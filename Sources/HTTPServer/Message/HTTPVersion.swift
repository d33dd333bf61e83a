/// The protocol version of a request line (RFC 9112 §2.3); only 1.0 and 1.1 are served.
package enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1

    package var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}

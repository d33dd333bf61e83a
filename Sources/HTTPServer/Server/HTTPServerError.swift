/// Why the server could not do what it was asked: the one error type of this module.
///
/// Protocol errors of clients are not thrown; they are ``HTTPRejection`` values turned into
/// 4xx/5xx responses at one boundary (the connection), as RFC 9112 §2.2 and §11 suggest.
package enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// A system call failed; carries the call's name and the `errno` read right after it.
    case systemCall(String, errno: Int32)
    /// `host` is not a numeric IPv4/IPv6 address or `localhost`, or the port is out of range.
    case invalidAddress(String)
    /// `start()` was called twice, or after `shutdown()`.
    case alreadyStarted

    /// The call, the errno text and number, e.g. `bind failed: Address already in use (errno 98)`.
    package var description: String {
        switch self {
        case .systemCall(let name, let code):
            "\(name) failed: \(Platform.describe(errno: code)) (errno \(code))"
        case .invalidAddress(let address):
            "invalid listening address \(address)"
        case .alreadyStarted:
            "the server was already started"
        }
    }

    /// The `errno` of a failed system call, nil otherwise.
    package var errno: Int32? {
        if case .systemCall(_, let code) = self { return code }
        return nil
    }
}

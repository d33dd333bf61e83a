/// Why an ``SMTPTransport`` could not be made: the server refuses to start rather than queue
/// mail it could never send.
package enum SMTPTransportSetupError: Error, Sendable, Equatable {
    /// The extra CA file (`--smtp-ca`) is missing or holds no certificate OpenSSL can read.
    case caFile(path: String, reason: String)
    /// OpenSSL could not make a TLS client context.
    case tls(String)
    /// The EHLO name is not a host name (RFC 5321 §4.1.1.1).
    case invalidHeloName(String)
}

extension SMTPTransportSetupError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .caFile(let path, let reason): "cannot load the mail relay's CA file \(path): \(reason)"
        case .tls(let reason): "cannot set up TLS for the mail relay: \(reason)"
        case .invalidHeloName(let name): "the name to greet the mail relay with is not a host name: \(name)"
        }
    }
}

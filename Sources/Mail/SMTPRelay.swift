import Basics

/// Where mail goes, from `smtp://[USER:PASSWORD@]HOST[:PORT]` (the `--smtp` option).
///
/// The user and password are percent-decoded (RFC 3986 §2.1), so any password can be written;
/// the port defaults to 25; the host is a name, an IPv4 address or an IPv6 address in brackets.
/// A path (other than a lone `/`), a query, a fragment, an empty host, or a user without a
/// password is refused rather than ignored. With credentials, ``SMTPTransport`` always requires
/// STARTTLS before it sends them.
package struct SMTPRelay: Sendable, Equatable {
    /// A name or an IP address (an IPv6 one without its brackets).
    package var host: String
    package var port: Int
    package var credentials: SMTPCredentials?

    package init(host: String, port: Int = 25, credentials: SMTPCredentials? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// The relay `url` names.
    package init(parsing url: String) throws(SMTPRelayURLError) {
        let scheme = "smtp://"
        guard url.prefix(scheme.count).lowercased() == scheme else {
            throw .unsupportedScheme
        }
        var authority = url.dropFirst(scheme.count)
        if let end = authority.firstIndex(where: { "/?#".contains($0) }) {
            guard authority[end...] == "/" else { throw .pathOrQuery }
            authority = authority[..<end]
        }
        var hostAndPort = authority
        credentials = nil
        // The last `@`: a password with an unescaped `@` still parses as people mean it.
        if let at = authority.lastIndex(of: "@") {
            credentials = try Self.credentials(authority[..<at])
            hostAndPort = authority[authority.index(after: at)...]
        }
        (host, port) = try Self.hostAndPort(hostAndPort)
    }

    /// `USER:PASSWORD`, each percent-decoded, neither empty nor holding NUL (which AUTH PLAIN
    /// uses as its separator, RFC 4616 §2).
    private static func credentials(_ userInfo: Substring) throws(SMTPRelayURLError) -> SMTPCredentials {
        guard let colon = userInfo.firstIndex(of: ":") else { throw .userWithoutPassword }
        let user = try decoded(userInfo[..<colon])
        let password = try decoded(userInfo[userInfo.index(after: colon)...])
        guard !user.isEmpty, !password.isEmpty else { throw .userWithoutPassword }
        return SMTPCredentials(user: user, password: password)
    }

    private static func decoded(_ text: Substring) throws(SMTPRelayURLError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try PercentEncoding.decode(text.utf8, plusIsSpace: false)
        } catch {
            throw .invalidEscape
        }
        guard !bytes.contains(0), let string = String(validating: bytes, as: UTF8.self) else { throw .invalidEscape }
        return string
    }

    private static func hostAndPort(_ text: Substring) throws(SMTPRelayURLError) -> (String, Int) {
        let host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard SocketCalls.isIPv6Address(String(host)) else { throw .invalidHost }
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .invalidHost }
                portText = rest.dropFirst()
            }
        } else {
            if let colon = text.lastIndex(of: ":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                host = text
            }
            guard !host.isEmpty else { throw .emptyHost }
            guard MailAddress.isDomain(host) else { throw .invalidHost }
        }
        guard let portText else { return (String(host), 25) }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
            let port = Int(portText), (1...65_535).contains(port)
        else { throw .invalidPort }
        return (String(host), port)
    }
}

/// Shows the relay as a URL without its password, for logs and error messages.
extension SMTPRelay: CustomStringConvertible {
    package var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let user = credentials.map { PercentEncoding.encode($0.user, keepingSlash: false, spaceAsPlus: false) + ":********@" } ?? ""
        return "smtp://\(user)\(host):\(port)"
    }
}

/// The user and password the relay's AUTH takes.
package struct SMTPCredentials: Sendable, Equatable {
    package var user: String
    package var password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// Shows the user only.
extension SMTPCredentials: CustomStringConvertible {
    package var description: String { "\(user):********" }
}

/// Why an `--smtp` URL was refused; never shows the password.
package enum SMTPRelayURLError: Error, Sendable, Equatable {
    /// Not `smtp://` (implicit TLS, `smtps://`, is not supported: use STARTTLS on 587).
    case unsupportedScheme
    /// A path, query or fragment after the host.
    case pathOrQuery
    case emptyHost
    /// Not a host name, IPv4 address or bracketed IPv6 address.
    case invalidHost
    /// Not a number from 1 to 65535.
    case invalidPort
    /// A user without a password (or a password without a user).
    case userWithoutPassword
    /// A bad `%` escape, or one decoding to NUL or to bytes that are not UTF-8.
    case invalidEscape
}

extension SMTPRelayURLError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .unsupportedScheme: "the mail relay URL must start with smtp://"
        case .pathOrQuery: "the mail relay URL has a path, query or fragment; it must be smtp://[USER:PASSWORD@]HOST[:PORT]"
        case .emptyHost: "the mail relay URL has no host"
        case .invalidHost: "the mail relay URL's host is not a host name, an IPv4 address or a bracketed IPv6 address"
        case .invalidPort: "the mail relay URL's port is not a number from 1 to 65535"
        case .userWithoutPassword: "the mail relay URL names a user without a password"
        case .invalidEscape: "the mail relay URL's user or password has a bad %-escape"
        }
    }
}

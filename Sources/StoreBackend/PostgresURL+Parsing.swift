import Basics
package import StorePostgres

/// The `--database` URL's syntax, `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (a subset of
/// libpq's connection URIs,
/// https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING-URIS), read into the
/// connection parameters StorePostgres connects with.
///
/// Each part may be percent-escaped (`%40` for `@` in a password); a host starting with `/`
/// (written `%2Fvar%2Frun%2Fpostgresql`) is a Unix-socket directory. One host only, no query
/// parameters: anything this parser does not understand is rejected, never ignored. A parse
/// error never quotes the URL, so never its password.
extension PostgresURL {
    /// Parses `text`.
    ///
    /// - Throws: ``DatabaseURLError`` naming the part at fault.
    package init(parsing text: String) throws(DatabaseURLError) {
        guard let scheme = ["postgres://", "postgresql://"].first(where: { text.hasPrefix($0) }) else {
            throw Self.invalid("it must start with postgres:// or postgresql://")
        }
        let rest = text.dropFirst(scheme.count)
        guard !rest.contains("?"), !rest.contains("#") else {
            throw Self.invalid("query parameters and fragments are not supported")
        }
        guard let slash = rest.firstIndex(of: "/") else { throw Self.invalid("it names no database (…/DB)") }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else { throw Self.invalid("it names no user (USER@HOST)") }
        let userInfo = authority[..<at]
        let colon = userInfo.firstIndex(of: ":")
        let user = try Self.decode(userInfo[..<(colon ?? userInfo.endIndex)], part: "user")
        let password = try colon.map { colon throws(DatabaseURLError) in
            try Self.decode(userInfo[userInfo.index(after: colon)...], part: "password")
        }
        let (host, port) = try Self.hostAndPort(authority[authority.index(after: at)...])
        guard !path.contains("/") else { throw Self.invalid("the database name must be one path segment") }
        let database = try Self.decode(path, part: "database name")
        guard !user.isEmpty else { throw Self.invalid("the user name is empty") }
        guard !database.isEmpty else { throw Self.invalid("the database name is empty") }
        self.init(user: user, password: password, host: host, port: port, database: database)
    }

    /// `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`; the port defaults to 5432.
    private static func hostAndPort(_ text: Substring) throws(DatabaseURLError) -> (String, Int) {
        let hostText: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid("an IPv6 host lacks its closing ]") }
            hostText = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 host") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else {
            let colon = text.firstIndex(of: ":")
            hostText = text[..<(colon ?? text.endIndex)]
            portText = colon.map { text[text.index(after: $0)...] }
        }
        let host = try decode(hostText, part: "host")
        guard !host.isEmpty else { throw invalid("the host is empty") }
        guard !host.contains(",") else { throw invalid("only one host is supported") }
        guard let portText else { return (host, 5432) }
        guard (1...5).contains(portText.count), portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
            (1...65_535).contains(port)
        else { throw invalid("the port must be a number from 1 to 65535") }
        return (host, port)
    }

    /// Undoes percent-escapes; the result must be UTF-8 without NUL (libpq takes C strings).
    private static func decode(_ text: Substring, part: String) throws(DatabaseURLError) -> String {
        guard let bytes = try? PercentEncoding.decode(text.utf8, plusIsSpace: false) else {
            throw invalid("the \(part) has a malformed percent-escape")
        }
        guard let decoded = String(validating: bytes, as: UTF8.self), !bytes.contains(0) else {
            throw invalid("the \(part) is not UTF-8 text without NUL")
        }
        return decoded
    }

    private static func invalid(_ reason: String) -> DatabaseURLError {
        DatabaseURLError(reason: reason)
    }
}

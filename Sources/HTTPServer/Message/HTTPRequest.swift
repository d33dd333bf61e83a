/// A complete request as the connection hands it to the responder: head plus the whole body.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as received (origin-form `/a?b`, absolute-form, or `*`).
    package var target: String
    /// The path of the target, still percent-encoded (`/quotes/1`); `*` for `OPTIONS *`.
    package var path: String
    /// The query after `?`, still percent-encoded, or nil when there is none.
    package var query: String?
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    /// The body, when it is in memory; empty when there is none, when it is in ``spooledBody``,
    /// or when the server refused it (``bodyRefusal``).
    package var body: [UInt8]
    /// The body, when the server wrote it to a file as it arrived (a large upload).
    package var spooledBody: SpooledBody?
    /// Why the server did not read the body, when it refused it: the responder answers without
    /// it (a page saying so), and the connection closes after the answer.
    package var bodyRefusal: HTTPBodyRefusal?
    /// Who is asking: the connection's peer, or, from a peer in
    /// ``HTTPServerConfiguration/trustedProxies``, the client it forwarded for. Set by the server
    /// before the responder sees the request; nil when the kernel could not say (and in requests
    /// made by hand). Per-client limits (sign-ins, event streams) count by it.
    package var client: IPAddress?

    package init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        let (path, query) = HTTPRequest.split(target: target)
        self.path = path
        self.query = query
    }

    /// Splits a target into path and query, reducing absolute-form (`http://host/p?q`) to its
    /// path as RFC 9112 §3.2.2 requires of a server.
    package static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        // The first byte, not `hasPrefix`, which compares by Character (a visible cost on every
        // request in a profile of signed-in search).
        if rest.utf8.first != UInt8(ascii: "/"), let scheme = rest.firstRange(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            if let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = afterAuthority[slash...]
            } else {
                rest = "/"
            }
            if rest.hasPrefix("?") { rest = "/" + rest }
        }
        // By UTF-8 byte: "?" is ASCII, and looking for it by Character walks grapheme boundaries
        // (a visible cost in a profile of the search page).
        guard let mark = rest.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (String(rest), nil) }
        return (String(rest[..<mark]), String(rest[rest.utf8.index(after: mark)...]))
    }

    /// The query decoded as `application/x-www-form-urlencoded`; empty when there is none.
    package var queryItems: URLEncodedForm {
        guard let query else { return URLEncodedForm() }
        return (try? URLEncodedForm(query)) ?? URLEncodedForm()
    }

    /// Whether `If-None-Match` names `etag` under the weak comparison of RFC 9110 §13.1.2 (a
    /// `W/` prefix on either side is ignored), or is `*` when `starMatches` — which only a
    /// responder that knows the resource exists may pass.
    ///
    /// Most requests carry no `If-None-Match` (every signed-in page is asked it): they cost one
    /// pass over the field names, and no array of values.
    package func ifNoneMatch(includes etag: String, starMatches: Bool = true) -> Bool {
        headers.containsValue(for: "If-None-Match") { field in
            let wanted = etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
            return field.split(separator: ",").contains { candidate in
                var tag = candidate.trimmingASCIIWhitespace()
                if tag == "*" { return starMatches }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == wanted
            }
        }
    }

    /// Whether the client asked to close after this exchange (`Connection: close`, or HTTP/1.0
    /// without `keep-alive`) — RFC 9112 §9.3.
    package var wantsClose: Bool {
        let tokens = headers.values(for: "Connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingASCIIWhitespace().lowercased() }
        switch version {
        case .http1_1: return tokens.contains("close")
        case .http1_0: return !tokens.contains("keep-alive")
        }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs (RFC 9110 OWS).
    package func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}

/// Why the server did not read a request's body, which it hands to the responder with the head
/// alone so that the answer is the application's page rather than the server's bare text.
package enum HTTPBodyRefusal: Sendable, Equatable {
    /// The body is over `limit` bytes, the limit for its `Content-Type` (``HTTPLimits``): 413.
    case tooLarge(limit: Int)
}

/// A complete request as the connection hands it to the responder: head plus the whole body.
///
/// A value whose fields live in one shared box (``Storage``), copied before a write only while
/// another value shares it: a request passes through the parser, the connection's state machine,
/// the event loop and the responder, and each hand-over copied its ten fields (a retain and a
/// release for each string, array and box among them: 185 calls a signed-in request, counted).
/// Now a hand-over is one retain (and the client's address, held inline).
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod {
        get { storage.method }
        _modify { makeUnique(); yield &storage.method }
    }
    /// The request target exactly as received (origin-form `/a?b`, absolute-form, or `*`).
    package var target: String {
        get { storage.target }
        _modify { makeUnique(); yield &storage.target }
    }
    /// The path of the target, still percent-encoded (`/quotes/1`); `*` for `OPTIONS *`.
    package var path: String {
        get { storage.path }
        _modify { makeUnique(); yield &storage.path }
    }
    /// The query after `?`, still percent-encoded, or nil when there is none.
    package var query: String? {
        get { storage.query }
        _modify { makeUnique(); yield &storage.query }
    }
    package var version: HTTPVersion {
        get { storage.version }
        _modify { makeUnique(); yield &storage.version }
    }
    package var headers: HTTPHeaders {
        get { storage.headers }
        _modify { makeUnique(); yield &storage.headers }
    }
    /// The body, when it is in memory; empty when there is none, when it is in ``spooledBody``,
    /// or when the server refused it (``bodyRefusal``).
    package var body: [UInt8] {
        get { storage.body }
        _modify { makeUnique(); yield &storage.body }
    }
    /// The body, when the server wrote it to a file as it arrived (a large upload).
    package var spooledBody: SpooledBody? {
        get { storage.spooledBody }
        _modify { makeUnique(); yield &storage.spooledBody }
    }
    /// Why the server did not read the body, when it refused it: the responder answers without
    /// it (a page saying so), and the connection closes after the answer.
    package var bodyRefusal: HTTPBodyRefusal? {
        get { storage.bodyRefusal }
        _modify { makeUnique(); yield &storage.bodyRefusal }
    }
    /// Who is asking: the connection's peer, or, from a peer in
    /// ``HTTPServerConfiguration/trustedProxies``, the client it forwarded for. Set by the server
    /// before the responder sees the request; nil when the kernel could not say (and in requests
    /// made by hand). Per-client limits (sign-ins, event streams) count by it.
    ///
    /// Kept beside the box, not in it: the server sets it on every request after the state
    /// machine has handed the request on, while the box is still shared, and setting it inside
    /// would copy the box each time.
    package var client: IPAddress?

    private var storage: Storage

    package init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        let (path, query) = HTTPRequest.split(target: target)
        storage = Storage(method: method, target: target, path: path, query: query, version: version, headers: headers, body: body)
    }

    /// Gives this value a box of its own before a write, when another value shares it.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The fields.
    ///
    /// `@unchecked Sendable`, and why that is safe: a box is written only through
    /// ``HTTPRequest``'s `_modify` accessors, each of which first makes it unique
    /// (``makeUnique()``: `isKnownUniquelyReferenced`, else a copy). A box that two values share,
    /// the only way two threads can reach it, is therefore never written while shared: it is as
    /// immutable as a struct's copy would be. Every field is itself `Sendable`.
    ///
    /// The fields are `@exclusivity(unchecked)`: a field is reached only by one accessor of
    /// ``HTTPRequest`` at a time, a get or a yield after `makeUnique()`, so the box a value is
    /// changed through is that value's alone, and overlapping accesses to one value are refused
    /// by Swift's static checks on the struct. The dynamic check on every read (a thread-local
    /// access set, about 9 a request) found nothing it could find.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var method: HTTPMethod
        @exclusivity(unchecked) var target: String
        @exclusivity(unchecked) var path: String
        @exclusivity(unchecked) var query: String?
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: [UInt8]
        @exclusivity(unchecked) var spooledBody: SpooledBody?
        @exclusivity(unchecked) var bodyRefusal: HTTPBodyRefusal?

        init(
            method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion, headers: HTTPHeaders,
            body: [UInt8], spooledBody: SpooledBody? = nil, bodyRefusal: HTTPBodyRefusal? = nil
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.query = query
            self.version = version
            self.headers = headers
            self.body = body
            self.spooledBody = spooledBody
            self.bodyRefusal = bodyRefusal
        }

        func copy() -> Storage {
            Storage(
                method: method, target: target, path: path, query: query, version: version, headers: headers, body: body,
                spooledBody: spooledBody, bodyRefusal: bodyRefusal)
        }
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

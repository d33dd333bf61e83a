import Basics
package import HTTPServer

/// A typed identifier for one page or action of the app: the only place URLs are spelled.
///
/// Each conforming enum parses a method and path into a case and generates the path of every
/// case, and the two round-trip (see `RouteTests`).
package protocol Route: Hashable, Sendable {
    /// Every route whose path is `segments` (percent-decoded path segments), whatever its
    /// method; `query` holds the target's query for routes that carry values in it.
    static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<Self>
    /// The method this route answers (HEAD is served wherever GET is).
    var method: HTTPMethod { get }
    /// The decoded path segments this route generates; `[]` is `/`.
    var segments: [String] { get }
    /// The query this route generates (`return_to` on the sign-in page); empty for most.
    var queryItems: [(name: String, value: String)] { get }
    /// Who may use it; the root coordinator checks this before any child sees the request.
    var access: RouteAccess { get }
    /// Which route this is, without its values: a bounded label for metrics (`RouteLabel.swift`).
    var metricsLabel: RouteLabel { get }
    /// Whether its page is a function of the state, the visitor and the target alone, so that
    /// an `ETag` of those revalidates it before any render (``PageTagMiddleware``); false for a
    /// page that shows account storage, which changes without the state (the sessions page),
    /// and is tagged from its rendered bytes. True unless a case says not.
    var isTaggedByState: Bool { get }
    /// Whether it is a member's write (``WriteLimits``): a form whose every use keeps an action
    /// in the journal, with no limit of its own. Each area answers for every case,
    /// so a new route is counted or not by a decision, never by default.
    var isMemberWrite: Bool { get }
}

/// Who may use a route (SPEC.md "Pages", column *who*).
package enum RouteAccess: Sendable, Equatable {
    case anyone
    /// Signed out: GET → 303 to the sign-in page with `return_to`, POST → 303 to it plain.
    case signedIn
    /// Only for people not signed in (sign-up); someone signed in is sent home.
    case signedOut
    /// Moderators only: signed out as ``signedIn``; a member gets the 403 page.
    case moderators
}

/// The outcome of matching a request against one route enum.
package enum RouteMatch<R: Hashable & Sendable>: Equatable, Sendable {
    case found(R)
    /// The path is this enum's, but not with that method; `allowed` goes in the `Allow` header.
    case methodNotAllowed(allowed: [HTTPMethod])
    case notFound
}

extension Route {
    package var queryItems: [(name: String, value: String)] { [] }
    package var isTaggedByState: Bool { true }

    /// The percent-encoded path (and query, if any) of this route, for links, form actions and
    /// redirects.
    ///
    /// Appends into one string (a short path such as `/quotes/7` stays a small string and
    /// allocates nothing) rather than mapping the segments into an array and joining it.
    package var path: String {
        var path = ""
        for segment in segments {
            path.append("/")
            path.append(PathSegments.encode(segment))
        }
        if path.isEmpty { path = "/" }
        let query = queryItems
        guard !query.isEmpty else { return path }
        return path + "?" + URLEncodedForm.encode(pairs: query)
    }

    /// Picks the case for `method` at `segments`; HEAD matches GET routes (RFC 9110 §9.3.2).
    package static func match(method: HTTPMethod, segments: [String], query: URLEncodedForm = URLEncodedForm()) -> RouteMatch<Self> {
        let candidates = routes(at: segments, query: query)
        guard let first = candidates.first else { return .notFound }
        let wanted = method == .head ? HTTPMethod.get : method
        if first.method == wanted { return .found(first) }
        if let second = candidates.second, second.method == wanted { return .found(second) }
        var allowed = [first.method]
        if let second = candidates.second { allowed.append(second.method) }
        if allowed.contains(.get) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed)
    }
}

/// The routes at one path: none, one, or two (a page and the form that posts to it). Written as
/// an array literal (`[.passwordForm, .changePassword]`), held inline: an array of them was an
/// allocation on every request, for one or two cases.
package struct RouteCandidates<R>: ExpressibleByArrayLiteral {
    package let first: R?
    package let second: R?

    /// At most two: a route enum with more cases at one path fails every test that reaches
    /// that path (RouteTests round-trips every case).
    @inline(__always)
    package init(arrayLiteral elements: R...) {
        precondition(elements.count <= 2, "at most two routes share a path")
        first = elements.first
        second = elements.count > 1 ? elements[1] : nil
    }
}

/// Splitting a request path into decoded segments and encoding them back.
package enum PathSegments {
    /// The `page` query parameter of a paged list: 1 when absent, 0 when it is not a positive
    /// number in canonical form (so every page has one address; the page then says there is no
    /// such page).
    package static func page(in query: URLEncodedForm) -> Int {
        query["page"].map { identifier($0) ?? 0 } ?? 1
    }

    /// `page` as a query item: none for the first page.
    package static func pageItems(_ page: Int) -> [(name: String, value: String)] {
        page == 1 ? [] : [("page", String(page))]
    }

    /// A path's segment count, its first segment and its last (empty strings where there are
    /// none), for a route enum to `switch` over: `(2, "password", "reset")`. Matching tuples of
    /// strings compares the few strings a case names; a `switch` over array literals built and
    /// compared whole arrays, case after case.
    package static func shape(of segments: some BidirectionalCollection<String>) -> (count: Int, first: String, last: String) {
        (segments.count, segments.first ?? "", segments.last ?? "")
    }

    /// `/quotes/7/edit` → `["quotes", "7", "edit"]`; `/` → `[]`. Nil for a path that is not
    /// origin-form or whose percent-escapes are not valid UTF-8.
    package static func decode(_ path: String) -> [String]? {
        guard path.hasPrefix("/") else { return nil }
        if path == "/" { return [] }
        return path.withUTF8InPlace { bytes -> [String]? in
            // Room for every segment at once (one array, not grown segment by segment).
            var segments: [String] = []
            segments.reserveCapacity(bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) })
            var start = 1
            for end in 1...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
                guard let segment = segment(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
                segments.append(segment)
                start = end + 1
            }
            return segments
        }
    }

    /// One raw segment decoded. Without a `%` it is taken as it is: the bytes of a `String`
    /// (valid UTF-8) cut at ASCII slashes are valid UTF-8, so nothing is repaired (validating them
    /// again was a visible cost in a profile of every page).
    private static func segment(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        guard raw.contains(UInt8(ascii: "%")) else { return String(decoding: raw, as: UTF8.self) }
        return percentDecode(raw)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters in one segment.
    package static func encode(_ segment: String) -> String {
        PercentEncoding.encode(segment, keepingSlash: false, spaceAsPlus: false)
    }

    /// `text` with its `%XX` escapes decoded (`+` stays `+`); nil for a bad escape or bytes that
    /// are not UTF-8.
    package static func percentDecoded(_ text: String) -> String? {
        percentDecode(text.utf8)
    }

    /// Decodes `%XX` escapes only (`+` stays `+` in a path, unlike in a form); nil for a bad
    /// escape or bytes that are not UTF-8.
    private static func percentDecode(_ bytes: some Collection<UInt8>) -> String? {
        guard let decoded = try? PercentEncoding.decode(bytes, plusIsSpace: false) else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }

    /// Parses a positive decimal id in canonical form (no sign, no leading zeros), so that
    /// every accepted segment is exactly the one the route generates.
    package static func identifier(_ segment: String) -> Int? {
        guard let first = segment.utf8.first, first != UInt8(ascii: "0"), segment.utf8.count <= 18,
            segment.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(segment)
    }
}

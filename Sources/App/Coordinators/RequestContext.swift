package import HTTPServer

/// One request on its way through the root coordinator: what is read from it once (cookies,
/// path, query, route) and what the chain's links learn about it (who is asking, the form, the
/// cookies to set, the page's tag).
///
/// Built once per request, from its head (``AppCoordinator/prepare(_:)``: for a POST before its
/// body is read, and kept by the server until it is), and passed along by reference: every link
/// and every child reads the same parsed cookies and route instead of parsing the request
/// again, and no step copies it.
///
/// `@unchecked Sendable`, safely: one request's context is only ever used by one thread at a
/// time, in sequence. The event loop builds it and runs every `.now` step; at the first `.later`
/// the rest of the chain, which then holds the only live use of it, runs inside that work in
/// one task, which the server awaits before anything else touches the request. Between a POST's
/// head and its body the server's connection holds it, on the loop's thread, and nothing runs. No step keeps it
/// past its own run, no two steps of one request run at once, and it is never shared between
/// requests. Each hand-off (the loop posting the task, the task's result coming back through the
/// loop's inbox) is a synchronisation point that orders the writes before and after it.
///
/// Its fields are `@exclusivity(unchecked)`: for the same reason, one step at a time, and each
/// access is a read or a write of one field that does not reach the context again while it
/// lasts (a `Visitor`, a cookie, a tag or a label is made before it is stored; the one closure
/// run during an access, `setCookies.removeAll`'s, compares a cookie's name with a local), so
/// no two accesses to a field of one context overlap. The dynamic check on each (a thread-local access set) cost more than the
/// accesses themselves on a signed-in page.
package final class RequestContext: @unchecked Sendable {
    /// The request: its head while the body is read, then the whole of it (the same head).
    @exclusivity(unchecked) package internal(set) var request: HTTPRequest
    /// The `Cookie` header, parsed once.
    package let cookies: HTTPCookies
    /// The route the path and method name: nil when the path is not origin-form or its escapes
    /// are not UTF-8 (answered 404, counted as `rejected`).
    package let match: RouteMatch<AppRoute>?
    /// The store's revision the page is built from, read after catching up with the visitor's
    /// own saves and before any state (``ReadYourWritesMiddleware``).
    @exclusivity(unchecked) package var revision: UInt64 = 0
    /// Who is asking (``VisitorMiddleware``).
    @exclusivity(unchecked) package var visitor = Visitor()
    /// A POST's form, decoded once its CSRF token has something to be checked against (``CSRFMiddleware``).
    @exclusivity(unchecked) package var form = SubmittedForm()
    /// The cookies the response sets.
    @exclusivity(unchecked) var setCookies: [SetCookie] = []
    /// The sentence the page shows once, after the redirect that set it (``NoticeMiddleware``).
    @exclusivity(unchecked) package var notice: PageNotice?
    /// How the page this GET renders is tagged, if it is one (``PageTagMiddleware``).
    @exclusivity(unchecked) var pageTagging = PageTagging.none
    /// Which route answered, for the request counters: the matched route's, else `unmatched`
    /// (`rejected` for a path that is not one); a file or a kept page says its own.
    @exclusivity(unchecked) var routeLabel = RouteLabel.unmatched

    package init(_ request: HTTPRequest) {
        self.request = request
        cookies = request.cookies
        guard let segments = PathSegments.decode(request.path) else {
            match = nil
            routeLabel = .rejected
            return
        }
        match = AppRoute.match(method: request.method, segments: segments, query: request.queryItems)
        if case .found(let route) = match { routeLabel = route.metricsLabel }
    }

    /// The matched route, if one claims the request.
    package var route: AppRoute? {
        if case .found(let route) = match { return route }
        return nil
    }
}

/// How a GET's page gets its `ETag` (``PageTagMiddleware``); only a page presented keeps it:
/// the flow's last link makes it ``none`` for a file, a photo, a stream or a redirect.
enum PageTagging: Sendable, Equatable {
    case none
    /// A tag made before the page from the state, the visitor and the target: a 304 costs no render.
    case state(String)
    /// A page that shows account storage, which changes without the state: tagged from its
    /// rendered bytes, so a 304 saves sending it, not making it.
    case content
}

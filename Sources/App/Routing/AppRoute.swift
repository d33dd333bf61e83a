package import HTTPServer

/// Every page and action of the app: the root coordinator's route enum, one case per child
/// coordinator, each holding that child's own route.
///
/// It is the one place that matches a request to a route (asking each area's enum in turn),
/// decides where a `return_to` may lead, and names the route for the request counters; so a new
/// route is one edit, in its area's enum.
package enum AppRoute: Hashable, Sendable {
    case quotes(QuotesRoute)
    case accounts(AccountsRoute)
    case profiles(ProfilesRoute)
    case system(SystemRoute)
    case moderation(ModerationRoute)

    /// The route of `method` at `segments`: the first area whose paths include `segments`
    /// decides (its route, or its 405).
    package static func match(method: HTTPMethod, segments: [String], query: URLEncodedForm) -> RouteMatch<AppRoute> {
        if let match = area(QuotesRoute.self, method, segments, query, AppRoute.quotes) { return match }
        if let match = area(AccountsRoute.self, method, segments, query, AppRoute.accounts) { return match }
        if let match = area(ProfilesRoute.self, method, segments, query, AppRoute.profiles) { return match }
        if let match = area(SystemRoute.self, method, segments, query, AppRoute.system) { return match }
        if let match = area(ModerationRoute.self, method, segments, query, AppRoute.moderation) { return match }
        return .notFound
    }

    private static func area<Area: Route>(
        _ area: Area.Type, _ method: HTTPMethod, _ segments: [String], _ query: URLEncodedForm, _ wrap: (Area) -> AppRoute
    ) -> RouteMatch<AppRoute>? {
        switch Area.match(method: method, segments: segments, query: query) {
        case .notFound: nil
        case .methodNotAllowed(let allowed): .methodNotAllowed(allowed: allowed)
        case .found(let route): .found(wrap(route))
        }
    }

    /// The area's route, as the protocol every area's enum shares.
    package var route: any Route {
        switch self {
        case .quotes(let route): route
        case .accounts(let route): route
        case .profiles(let route): route
        case .system(let route): route
        case .moderation(let route): route
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .quotes(let route): route.method
        case .accounts(let route): route.method
        case .profiles(let route): route.method
        case .system(let route): route.method
        case .moderation(let route): route.method
        }
    }

    package var access: RouteAccess {
        switch self {
        case .quotes(let route): route.access
        case .accounts(let route): route.access
        case .profiles(let route): route.access
        case .system(let route): route.access
        case .moderation(let route): route.access
        }
    }

    /// Whether its page's ETag is the state's revision (``Route/isTaggedByState``), asked of the
    /// area's route directly: through ``route`` the answer cost an existential box, a heap
    /// allocation for a route larger than three words, on every GET.
    package var isTaggedByState: Bool {
        switch self {
        case .quotes(let route): route.isTaggedByState
        case .accounts(let route): route.isTaggedByState
        case .profiles(let route): route.isTaggedByState
        case .system(let route): route.isTaggedByState
        case .moderation(let route): route.isTaggedByState
        }
    }

    package var metricsLabel: RouteLabel {
        switch self {
        case .quotes(let route): route.metricsLabel
        case .accounts(let route): route.metricsLabel
        case .profiles(let route): route.metricsLabel
        case .system(let route): route.metricsLabel
        case .moderation(let route): route.metricsLabel
        }
    }

    /// Its pages carry forms for people who are not signed in (sign-up, sign-in): a visitor
    /// without a pre-session cookie gets one, so the form's CSRF token has something to bind to.
    package var offersSignedOutForms: Bool {
        if case .accounts = self { return true }
        return false
    }

    /// Its form sends a file, and its flow itself says beside the field when the body was too
    /// large for the server to read (every other route answers the generic 413 page).
    package var takesUploads: Bool {
        if case .profiles(.updatePhoto) = self { return true }
        return false
    }

    /// Whether it is a member's write, counted against ``WriteLimits``
    /// (``Route/isMemberWrite``, asked of the area's route directly, as ``isTaggedByState``).
    package var isMemberWrite: Bool {
        switch self {
        case .quotes(let route): route.isMemberWrite
        case .accounts(let route): route.isMemberWrite
        case .profiles(let route): route.isMemberWrite
        case .system(let route): route.isMemberWrite
        case .moderation(let route): route.isMemberWrite
        }
    }

    /// Whether sign-in may lead here afterwards: a page someone can be sent to after the sign-in
    /// page interrupted them, not a file, a stream, an action or a page for the signed-out.
    var isReturnDestination: Bool {
        guard method == .get, access != .signedOut else { return false }
        switch self {
        case .quotes(.events), .profiles(.photo), .system, .accounts: return false
        case .quotes, .profiles, .moderation: return true
        }
    }

    /// The page a `return_to` names, rebuilt from the route it parses to: a page of this app or
    /// nothing, so a redirect never leaves the site whatever was typed.
    package static func location(for returnTo: ReturnPath) -> Location? {
        let (path, queryText) = HTTPRequest.split(target: returnTo.rawValue)
        guard let segments = PathSegments.decode(path) else { return nil }
        let query = (try? URLEncodedForm(Array((queryText ?? "").utf8))) ?? URLEncodedForm()
        guard case .found(let route) = match(method: .get, segments: segments, query: query), route.isReturnDestination else {
            return nil
        }
        return Location(route.route)
    }
}

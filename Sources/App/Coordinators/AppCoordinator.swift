package import HTTPServer
import Foundation
import Logging
import Store

/// The root of the coordinator tree and the server's responder.
///
/// It finds out who is asking (session cookie), offers each request to the children's route
/// enums in turn, and for the one that claims it checks, in SPEC.md's order, the CSRF token of a
/// POST (403), then sign-in (303 to the sign-in page), before the child sees it. It decides where
/// finished flows lead (setting and clearing the session cookie), answers 404/405 when no child
/// claims a request, and is the one boundary where errors become responses (a 500 page, details
/// only in development; 503 when the database is out of reach). On a journal shared with other
/// instances it also keeps each visitor's own saves visible to them (``SeenWriteCookie``).
package struct AppCoordinator: HTTPResponder {
    private let quotes: QuotesCoordinator
    private let accounts: AccountsCoordinator
    private let profiles: ProfilesCoordinator
    private let system: SystemCoordinator
    private let store: Store
    /// Fans the store's quote changes out to open quote pages.
    private let feed: QuoteFeed
    private let sessions: SessionKeeper
    private let csrf: CSRFProtection
    /// The cookies' names and attributes (`--secure-cookies`).
    private let cookies: AppCookies
    /// The journal is shared with other instances: state-changing POSTs set the
    /// ``SeenWriteCookie`` and requests carrying it wait for this instance to catch up.
    private let sharesJournal: Bool
    /// Signs and checks that cookie's journal positions with the book's secret.
    private let seen: SeenWriteCookie
    private let now: @Sendable () -> Date
    private let renderer: PageRenderer
    private let logger: Logger
    /// Random per process, in every page's `ETag`, so a tag from before a restart never matches.
    private let bootID: [UInt8]
    /// Pages carry an `ETag` (not in `--dev`, where templates change under them).
    private let tagsPages: Bool
    /// Signed-out visitors' pages, by target, for the store's current revision; nil in `--dev`,
    /// where templates change under them.
    private let pageCache: PageCache?
    /// Signed-out pages kept now (0 in `--dev`), for tests and diagnostics.
    package var cachedPageCount: Int { pageCache?.count ?? 0 }
    /// Counts every answer by route and status (`--metrics`); nil counts nothing. Held itself,
    /// not through its registry, so counting borrows it from `self` and retains nothing: no
    /// reference count shared by every request is touched.
    private let requestCounters: HTTPRequestCounters?

    /// Builds the tree: the root creates its children and injects what each needs.
    package init(dependencies: Dependencies) {
        let store = dependencies.store
        let sessions = SessionKeeper(storage: dependencies.sessionStorage)
        let profileCache = ProfileCache()
        store.observe { _ in profileCache.invalidateAll() }
        let photos = PhotoKeeper(
            store: store, storage: dependencies.photoStorage, now: dependencies.now, logger: dependencies.logger.labeled("photos"))
        let profileController = ProfileController(store: store, cache: profileCache, photos: photos, sessions: sessions, now: dependencies.now)
        let accountsController = AccountsController(
            store: store, hasher: PasswordHasher(pool: dependencies.hashingPool, crypt: dependencies.passwordCrypt), sessions: sessions,
            throttle: SignInThrottle(storage: dependencies.signInFailures),
            addressLimits: AddressLimits(storage: dependencies.signInFailures, limits: dependencies.accountLimits), now: dependencies.now)
        let feed = QuoteFeed(store: store, heartbeatInterval: dependencies.live.heartbeatInterval)
        store.observe { feed.publish($0) }
        quotes = QuotesCoordinator(controller: QuoteController(store: store, now: dependencies.now), feed: feed)
        accounts = AccountsCoordinator(accounts: accountsController, profiles: profileController)
        profiles = ProfilesCoordinator(controller: profileController)
        let live = dependencies.live
        system = SystemCoordinator(
            staticFiles: dependencies.staticFiles, metrics: dependencies.metrics,
            developmentReload: dependencies.isDevelopment
                ? DevelopmentReload(folders: live.watchedFolders, interval: live.watchInterval, heartbeatInterval: live.heartbeatInterval)
                : nil)
        self.store = store
        self.feed = feed
        self.sessions = sessions
        csrf = CSRFProtection(key: dependencies.csrfKey)
        cookies = AppCookies(isSecure: dependencies.secureCookies)
        seen = SeenWriteCookie(bookSecret: dependencies.csrfKey, names: cookies)
        sharesJournal = store.sharesJournal
        now = dependencies.now
        renderer = PageRenderer(
            source: dependencies.templates,
            showsErrorDetails: dependencies.isDevelopment,
            reloadsOnChange: dependencies.isDevelopment,
            logger: dependencies.logger.labeled("view")
        )
        logger = dependencies.logger.labeled("app")
        bootID = SecureRandom.bytes(16)
        tagsPages = !dependencies.isDevelopment
        pageCache = dependencies.isDevelopment ? nil : PageCache()
        requestCounters = dependencies.metrics?.requests
    }

    /// Quote event streams open now (for tests and metrics).
    package var openEventStreams: Int { feed.listenerCount }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        // Only a position this book signed is waited for: a forged one is ignored at once.
        if sharesJournal, let sequence = seen.sequence(in: request.cookies),
            !(await store.waitForJournal(through: sequence, timeout: SeenWriteCookie.catchUpTimeout))
        {
            logger.warning("\(request.method) \(request.path): served before this instance caught up with the visitor's last save")
        }
        var exchange = Exchange(visitor: Visitor(), revision: store.revision)
        let navigation: Navigation
        do {
            navigation = try await route(request, exchange: &exchange)
        } catch {
            logger.error("\(request.method) \(request.path) failed: \(error)")
            navigation = .present(ErrorView.page(for: Self.failure(for: error)))
        }
        var response: HTTPResponse
        do {
            response = try await resolve(navigation, exchange: &exchange)
        } catch {
            logger.error("\(request.method) \(request.path) failed: \(error)")
            response = renderer.response(for: ErrorView.page(for: Self.failure(for: error)), visitor: exchange.visitor)
        }
        if sharesJournal, request.method == .post, response.status == .seeOther {
            // After the save, so the sequence includes it: the next page may come from another instance.
            exchange.cookies.append(seen.setting(store.appliedJournalSequence))
        }
        return finish(response, exchange: exchange)
    }

    /// The error page for a failure that reached the boundary: 503 with `Retry-After` when the
    /// database is out of reach for a moment (a restart), else the generic 500.
    package static func failure(for error: any Error) -> ErrorView.Failure {
        if let error = error as? StoreError, error.isDatabaseUnavailable { return .databaseUnavailable(details: "\(error)") }
        return .serverFault(details: "\(error)")
    }

    /// The same response as ``respond(to:)`` when it needs nothing asynchronous, else nil: a GET
    /// or HEAD of a quote-book page whose visitor is signed out or resolves from the session
    /// cache without I/O (``SessionKeeper/cachedSession(forToken:now:)``), answered from the
    /// ``PageCache`` when the visitor is nobody and the page is kept. Nil also when the visitor's
    /// `quotebook_seen` names a journal entry this instance has not applied (the async path
    /// catches up first). Runs on the event loop.
    package func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .get || request.method == .head else { return nil }
        if sharesJournal, let sequence = seen.sequence(in: request.cookies), sequence > store.appliedJournalSequence {
            return nil  // this visitor saved something this instance has not applied yet: catch up first
        }
        let revision = store.revision
        let requestCookies = request.cookies
        let cache = isAnonymous(requestCookies) ? pageCache : nil
        if let entry = cache?.entry(for: request.target, revision: revision) {
            let response = request.ifNoneMatch(includes: entry.tag, starMatches: false) ? Self.notModified(entry.tag) : entry.response
            requestCounters?.count(entry.routeLabel, status: response.status.code)
            return response
        }
        var exchange = Exchange(visitor: Visitor(), revision: revision)
        guard let navigation = routeImmediately(request, cookies: requestCookies, exchange: &exchange) else { return nil }
        let response: HTTPResponse
        switch navigation {
        case .present, .redirect, .respond: response = resolvePage(navigation, exchange: exchange)
        case .finished: return nil
        }
        let finished = finish(response, exchange: exchange)
        if let cache, let tag = exchange.pageTag, finished.status == .ok, exchange.cookies.isEmpty,
            exchange.visitor.user == nil, exchange.visitor.csrfToken == nil
        {
            cache.store(PageCache.Entry(response: finished, tag: tag, routeLabel: exchange.routeLabel), for: request.target, revision: revision)
        }
        return finished
    }

    /// The answer to a POST whose cookies cannot carry a valid CSRF binding — no session cookie
    /// and no well-formed pre-session cookie — decided from its head, so that its body is never
    /// read: the 404 or 405 of its route, else the 403 of SPEC.md's order of checks (the same
    /// pages ``respond(to:)`` gives it, whatever the body). Nil for anything else. Runs on the
    /// event loop.
    package func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .post else { return nil }
        guard cookies.value(.session, in: request.cookies) == nil, csrfBinding(request, visitor: Visitor()) == nil else {
            return nil
        }
        var exchange = Exchange(visitor: Visitor(), revision: store.revision)
        guard let segments = decodedSegments(of: request, exchange: &exchange) else {
            return finish(resolvePage(.present(ErrorView.page(for: .notFound)), exchange: exchange), exchange: exchange)
        }
        let query = request.queryItems
        let claims = [
            claim(request, segments, query, for: quotes, exchange: &exchange).decision,
            claim(request, segments, query, for: accounts, exchange: &exchange).decision,
            claim(request, segments, query, for: profiles, exchange: &exchange).decision,
            claim(request, segments, query, for: system, exchange: &exchange).decision,
        ]
        // The first child that claims the path decides; none does: the usual path answers 404.
        guard let claimed = claims.first(where: { $0 != nil }), let navigation = claimed ?? nil else { return nil }
        return finish(resolvePage(navigation, exchange: exchange), exchange: exchange)
    }

    /// Whether a request with `requestCookies` carries neither a session nor a pre-session
    /// cookie: its visitor is nobody, and its page is the one every such request for the same
    /// target gets.
    private func isAnonymous(_ requestCookies: HTTPCookies) -> Bool {
        cookies.value(.session, in: requestCookies) == nil && cookies.value(.preSession, in: requestCookies) == nil
    }

    /// The answer to a GET whose `If-None-Match` names the page's current `tag`.
    private static func notModified(_ tag: String) -> HTTPResponse {
        HTTPResponse(status: .notModified, headers: ["ETag": tag, "Cache-Control": "private, no-cache"])
    }

    /// Adds the cookies the exchange collected (and `no-store` when there are any).
    private func finish(_ response: HTTPResponse, exchange: Exchange) -> HTTPResponse {
        var response = response
        for cookie in exchange.cookies { response.headers.add(name: "Set-Cookie", value: cookie.headerValue) }
        if !exchange.cookies.isEmpty { response.headers.set(name: "Cache-Control", value: "no-store") }
        requestCounters?.count(exchange.routeLabel, status: response.status.code)
        return response
    }

    /// Requests the server refused before routing (malformed, over a limit, too slow) are
    /// counted too, under `rejected`.
    package func rejected(_ rejection: HTTPRejection) {
        requestCounters?.count(.rejected, status: rejection.status.code)
    }

    /// What the root learns about one request on its way through: who is asking, and the
    /// cookies the response must set.
    struct Exchange {
        var visitor: Visitor
        /// The store's revision when the request arrived, read before any state.
        var revision: UInt64
        var cookies: [SetCookie] = []
        /// The `ETag` of the page this GET renders, if it is one.
        var pageTag: String?
        /// Which route answered, for the request counters; set once a route claims the request.
        var routeLabel = RouteLabel.unmatched
    }

    /// Finds the child whose routes claim the request and starts its flow.
    func route(_ request: HTTPRequest, exchange: inout Exchange) async throws -> Navigation {
        guard let segments = decodedSegments(of: request, exchange: &exchange) else { return .present(ErrorView.page(for: .notFound)) }
        exchange.visitor = try await identify(request, exchange: &exchange)
        let query = request.queryItems
        if let navigation = try await offer(request, segments, query, to: quotes, exchange: &exchange) { return navigation }
        if let navigation = try await offer(request, segments, query, to: accounts, exchange: &exchange, issuesFormToken: true) {
            return navigation
        }
        if let navigation = try await offer(request, segments, query, to: profiles, exchange: &exchange) { return navigation }
        if let navigation = try await offer(request, segments, query, to: system, exchange: &exchange) { return navigation }
        guard let file = system.staticFile(for: request) else { return .present(ErrorView.page(for: .notFound)) }
        exchange.routeLabel = .staticFile
        return file
    }

    /// The request's path as decoded segments; nil (counted as `rejected`, answered 404) for a
    /// path that is not origin-form or whose escapes are not UTF-8.
    private func decodedSegments(of request: HTTPRequest, exchange: inout Exchange) -> [String]? {
        let segments = PathSegments.decode(request.path)
        if segments == nil { exchange.routeLabel = .rejected }
        return segments
    }

    /// ``route(_:exchange:)`` for what needs nothing asynchronous: nil when the visitor is not
    /// known without I/O, the quote book does not claim the request, or its flow must wait.
    /// Other children's pages always take the async path (they come after the quote book in
    /// ``route(_:exchange:)``, so nothing they claim is decided here).
    func routeImmediately(_ request: HTTPRequest, cookies: HTTPCookies, exchange: inout Exchange) -> Navigation? {
        guard let segments = decodedSegments(of: request, exchange: &exchange) else { return .present(ErrorView.page(for: .notFound)) }
        guard let visitor = identifyImmediately(cookies, exchange: &exchange) else { return nil }
        exchange.visitor = visitor
        switch claim(request, segments, request.queryItems, for: quotes, exchange: &exchange) {
        case .unclaimed: return nil
        case .decided(let navigation): return navigation
        case .start(let route, _): return quotes.startImmediately(route, visitor: exchange.visitor)
        }
    }

    /// What the root's checks make of a request for one child.
    private enum Claim<FlowRoute> {
        /// The child's routes do not claim the path.
        case unclaimed
        /// Answered before the child starts (405, 403, sign-in redirect, 304, ...).
        case decided(Navigation)
        /// The child starts this route with this form.
        case start(FlowRoute, SubmittedForm)

        /// nil when unclaimed; `.some(nil)` when the child would start (no decision yet).
        var decision: Navigation?? {
            switch self {
            case .unclaimed: nil
            case .decided(let navigation): .some(navigation)
            case .start: .some(nil)
            }
        }
    }

    /// Offers the request to `child`: nil when its routes do not claim the path. For a claimed
    /// route, the checks run in SPEC.md's order — CSRF token (POST), then sign-in — before the
    /// child starts. `issuesFormToken`: a signed-out visitor without a pre-session cookie gets
    /// one, because this child's pages carry forms for signed-out people.
    private func offer<Child: FlowCoordinator>(
        _ request: HTTPRequest, _ segments: [String], _ query: URLEncodedForm, to child: Child,
        exchange: inout Exchange, issuesFormToken: Bool = false
    ) async throws -> Navigation? {
        switch claim(request, segments, query, for: child, exchange: &exchange, issuesFormToken: issuesFormToken) {
        case .unclaimed: return nil
        case .decided(let navigation): return navigation
        case .start(let route, let form): return try await child.start(route, request: request, form: form, visitor: exchange.visitor)
        }
    }

    /// The checks of ``offer(_:_:_:to:exchange:issuesFormToken:)``, which need nothing
    /// asynchronous; everything but starting the child.
    private func claim<Child: FlowCoordinator>(
        _ request: HTTPRequest, _ segments: [String], _ query: URLEncodedForm, for child: Child,
        exchange: inout Exchange, issuesFormToken: Bool = false
    ) -> Claim<Child.FlowRoute> {
        let route: Child.FlowRoute
        switch Child.FlowRoute.match(method: request.method, segments: segments, query: query) {
        case .notFound: return .unclaimed
        case .methodNotAllowed(let allowed): return .decided(.present(ErrorView.page(for: .methodNotAllowed(allowed))))
        case .found(let found):
            route = found
            exchange.routeLabel = found.metricsLabel
        }
        var form = SubmittedForm()
        if route.method == .post {
            // Without a binding no token can be right, whatever the body: decided from the head
            // (``respondBeforeBody(to:)``), before the form is read.
            guard let binding = csrfBinding(request, visitor: exchange.visitor) else {
                return .decided(.present(ErrorView.page(for: .forbidden(ErrorView.expiredFormMessage))))
            }
            guard let submitted = SubmittedForm(request) else {
                return .decided(.present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again."))))
            }
            guard csrf.isValid(submitted[CSRFField.token], for: binding) else {
                return .decided(.present(ErrorView.page(for: .forbidden(ErrorView.expiredFormMessage))))
            }
            form = submitted
        }
        switch route.access {
        case .signedIn where !exchange.visitor.isSignedIn:
            if route.method == .get, let returnTo = ReturnPath(request.target) {
                return .decided(.push(AccountsRoute.signInForm(returnTo: returnTo)))
            }
            return .decided(.push(AccountsRoute.signInForm(returnTo: nil)))
        case .signedOut where exchange.visitor.isSignedIn:
            return .decided(.push(QuotesRoute.home))
        default:
            break
        }
        if issuesFormToken, exchange.visitor.csrfToken == nil {
            let value = CSRFProtection.makePreSessionValue()
            exchange.cookies.append(cookies.setting(.preSession, to: value))
            exchange.visitor.csrfToken = csrf.token(for: .preSession(value))
        }
        if tagsPages, route.method == .get {
            let tag = pageTag(for: request, exchange: exchange)
            // `*` does not match: whether this page exists is only known once it is built.
            if request.ifNoneMatch(includes: tag, starMatches: false) {
                return .decided(.respond(Self.notModified(tag)))
            }
            exchange.pageTag = tag
        }
        return .start(route, form)
    }

    /// A page is a function of the state, who is asking (their account and CSRF token) and the
    /// target, so its tag is a hash of those: revalidating an unchanged page costs a 304 and no
    /// render (SPEC.md "Sessions and security").
    ///
    /// The hash is SipHash (Swift's `Hasher`, keyed at random per process) over the process's
    /// random `bootID` first, then fields of fixed size or with their length, so no two inputs
    /// run together. A tag only has to change whenever the page could: 64 bits make two states
    /// of one visitor's page at one URL collide once in 2^64. It need not be a cryptographic
    /// digest: the tag is sent only to its own visitor (`Cache-Control: private`), whose page
    /// already holds the CSRF token, and without the process's secret key and `bootID` (128
    /// random bits of input even where the seed is fixed, `SWIFT_DETERMINISTIC_HASHING`) one
    /// visitor's tag tells nothing about another's, nor about the token. SHA-256 here cost two
    /// compressions on every rendered page.
    private func pageTag(for request: HTTPRequest, exchange: Exchange) -> String {
        var hasher = Hasher()
        bootID.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(exchange.revision)
        hasher.combine(Int64(exchange.visitor.user?.id.rawValue ?? 0))
        Self.combine(exchange.visitor.csrfToken ?? "", into: &hasher)
        Self.combine(request.target, into: &hasher)
        let tag = UInt64(UInt(bitPattern: hasher.finalize()))
        return "W/\"" + withUnsafeBytes(of: tag.littleEndian) { Base64URL.encode($0) } + "\""
    }

    /// Feeds `text`'s length and UTF-8 bytes to `hasher`.
    private static func combine(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }

    /// The signed-in person, from the session cookie, and the CSRF token their forms carry.
    private func identify(_ request: HTTPRequest, exchange: inout Exchange) async throws -> Visitor {
        let requestCookies = request.cookies
        let date = now()
        var session: SessionRecord?
        if let token = cookies.value(.session, in: requestCookies) {
            session = try await sessions.session(forToken: token, now: date)
        }
        if let session, store.state.users[session.userID] == nil {
            // A session another instance started for an account it has just made: this instance
            // applies the sign-up from the shared journal a moment later, or now.
            await store.catchUpWithJournal()
        }
        return visitor(cookies: requestCookies, session: session, date: date, exchange: &exchange)
    }

    /// ``identify(_:exchange:)`` from the session cache alone, given the request's `cookies`: nil
    /// when only storage can tell.
    private func identifyImmediately(_ requestCookies: HTTPCookies, exchange: inout Exchange) -> Visitor? {
        let date = now()
        var session: SessionRecord?
        if let token = cookies.value(.session, in: requestCookies) {
            switch sessions.cachedSession(forToken: token, now: date) {
            case .notAToken: session = nil
            case .live(let record) where store.state.users[record.userID] != nil: session = record
            case .live, .needsStorage: return nil
            }
        }
        return visitor(cookies: requestCookies, session: session, date: date, exchange: &exchange)
    }

    /// Who is asking, given the session the cookie names (nil: none, or not live). The cookie is
    /// deleted only when the session is not live: a live one whose account this instance has not
    /// applied yet (made on another instance) is signed out for this request alone.
    private func visitor(cookies requestCookies: HTTPCookies, session: SessionRecord?, date: Date, exchange: inout Exchange) -> Visitor {
        if let token = cookies.value(.session, in: requestCookies) {
            if let session, let user = store.state.users[session.userID] {
                if session.lastUsedAt == date, session.createdAt != date {
                    // Used again after an hour or more: the browser's copy gets a fresh lifetime too.
                    exchange.cookies.append(sessionCookie(token))
                }
                return Visitor(user: user, session: session, csrfToken: csrf.token(for: .session(id: session.id)))
            }
            if session == nil { exchange.cookies.append(cookies.deleting(.session)) }
        }
        if let value = cookies.value(.preSession, in: requestCookies), CSRFProtection.isPreSessionValue(value) {
            return Visitor(csrfToken: csrf.token(for: .preSession(value)))
        }
        return Visitor()
    }

    /// What a POST's CSRF token must be bound to: the session, or the pre-session cookie.
    private func csrfBinding(_ request: HTTPRequest, visitor: Visitor) -> CSRFProtection.Binding? {
        if let session = visitor.session { return .session(id: session.id) }
        guard let value = cookies.value(.preSession, in: request.cookies), CSRFProtection.isPreSessionValue(value) else {
            return nil
        }
        return .preSession(value)
    }

    /// The parent's decision when a child's flow ends (`onFlowFinished`).
    func onFlowFinished(_ outcome: FlowOutcome, exchange: inout Exchange) async throws -> Navigation {
        switch outcome {
        case .quoteSaved(let id), .favouriteChosen(let id):
            return .push(QuotesRoute.show(id))
        case .quoteDeleted:
            return .push(QuotesRoute.list(page: 1))
        case let .signedIn(session, returnTo):
            if let old = exchange.visitor.session { try await sessions.end(old) }
            exchange.cookies.removeAll { $0.name == cookies.name(.session) }
            exchange.cookies.append(sessionCookie(session.token))
            return .redirect(returnTo.flatMap(Self.location(for:)) ?? Location(QuotesRoute.home))
        case .signedOut:
            exchange.cookies.append(cookies.deleting(.session))
            return .push(QuotesRoute.home)
        case .profileUpdated(let username):
            return .push(ProfilesRoute.show(username))
        }
    }

    /// The page a `return_to` names, rebuilt from the route it parses to: a GET route of this
    /// app or nothing, so a redirect never leaves the site whatever was typed.
    static func location(for returnTo: ReturnPath) -> Location? {
        let (path, queryText) = HTTPRequest.split(target: returnTo.rawValue)
        guard let segments = PathSegments.decode(path) else { return nil }
        let query = (try? URLEncodedForm(Array((queryText ?? "").utf8))) ?? URLEncodedForm()
        if case .found(let route) = QuotesRoute.match(method: .get, segments: segments, query: query) { return Location(route) }
        if case .found(let route) = ProfilesRoute.match(method: .get, segments: segments, query: query) {
            if case .photo = route { return nil }
            return Location(route)
        }
        return nil
    }

    private func sessionCookie(_ token: String) -> SetCookie {
        cookies.setting(.session, to: token, maxAge: Int(SessionKeeper.idleLifetime))
    }

    /// Performs a navigation: renders, redirects, or passes a response through.
    private func resolve(_ navigation: Navigation, exchange: inout Exchange) async throws -> HTTPResponse {
        switch navigation {
        case .present, .redirect, .respond: return resolvePage(navigation, exchange: exchange)
        case .finished(let outcome): return try await resolve(onFlowFinished(outcome, exchange: &exchange), exchange: &exchange)
        }
    }

    /// The navigations that need no parent decision: render, redirect, pass through.
    private func resolvePage(_ navigation: Navigation, exchange: Exchange) -> HTTPResponse {
        switch navigation {
        case .present(let page):
            var response = renderer.response(for: page, visitor: exchange.visitor)
            if let tag = exchange.pageTag, response.status == .ok { response.headers.add(name: "ETag", value: tag) }
            return response
        case .redirect(let location): return .seeOther(location.path)
        case .respond(let response): return response
        case .finished: preconditionFailure("a finished flow goes to its parent first (resolve)")
        }
    }
}

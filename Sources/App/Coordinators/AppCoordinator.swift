package import Basics
package import HTTPServer
import Foundation
import Logging
import Store

/// The root of the coordinator tree and the server's responder.
///
/// Every request takes one path: a ``RequestContext`` built once (cookies, route), then small
/// gates in SPEC.md's order — the visitor's own saves (``ReadYourWritesGate``), the kept page of a
/// visitor who is nobody (``PageTagGate``), who is asking (``VisitorGate``), the CSRF token of a
/// POST (``CSRFGate``), access (``AccessGate``), the page's tag — then the flow of the child whose
/// route it is. Each step is a ``Step``: the whole path runs on the event loop while nothing must
/// wait, and suspends only where something does (storage, a password hash).
///
/// The root decides where finished flows lead (setting and clearing the session cookie), answers
/// 404/405 when no child's route claims a request, and is the one boundary where errors become
/// responses (a 500 page, details only in development; 503 when the database is out of reach).
package final class AppCoordinator: HTTPResponder {
    private let quotes: QuotesCoordinator
    private let accounts: AccountsCoordinator
    private let profiles: ProfilesCoordinator
    private let system: SystemCoordinator
    private let moderation: ModerationCoordinator
    /// Fans the store's quote changes out to open quote pages.
    private let feed: QuoteFeed
    private let sessions: SessionKeeper
    private let readYourWrites: ReadYourWritesGate
    private let visitors: VisitorGate
    /// Marks a browser that signs in as known to the account (its own sign-in limit).
    private let devices: KnownDeviceCookie
    private let csrf: CSRFGate
    private let access = AccessGate()
    private let pageTags: PageTagGate
    private let renderer: PageRenderer
    private let logger: Logger
    /// Counts every answer by route and status (`--metrics`); nil counts nothing.
    private let requestCounters: HTTPRequestCounters?

    /// Builds the tree: the root creates its children and injects what each needs.
    package init(dependencies: Dependencies) {
        let store = dependencies.store
        let sessions = SessionKeeper(storage: dependencies.sessionStorage)
        let profileCache = ProfileCache()
        store.observe { _ in profileCache.invalidateAll() }
        let photos = PhotoKeeper(
            store: store, storage: dependencies.photoStorage, now: dependencies.now, logger: dependencies.logger.labeled("photos"))
        let profileController = ProfileController(
            store: store, cache: profileCache, photos: photos, processing: dependencies.photoProcessing,
            attempts: dependencies.signInFailures, sessions: sessions, now: dependencies.now)
        let accountsController = AccountsController(
            store: store, hasher: PasswordHasher(pool: dependencies.hashingPool, crypt: dependencies.passwordCrypt), sessions: sessions,
            throttle: SignInThrottle(storage: dependencies.signInFailures),
            addressLimits: AddressLimits(storage: dependencies.signInFailures, limits: dependencies.accountLimits), now: dependencies.now)
        let feed = QuoteFeed(store: store, heartbeatInterval: dependencies.live.heartbeatInterval)
        store.observe { feed.publish($0) }
        let moderationController = ModerationController(
            store: store, attempts: dependencies.signInFailures, sessions: sessions, now: dependencies.now)
        quotes = QuotesCoordinator(controller: QuoteController(store: store, now: dependencies.now), feed: feed, moderation: moderationController)
        moderation = ModerationCoordinator(controller: moderationController, profiles: profileController)
        let cookies = AppCookies(isSecure: dependencies.secureCookies)
        let devices = KnownDeviceCookie(bookSecret: dependencies.csrfKey, names: cookies)
        self.devices = devices
        let emailController = EmailController(
            accounts: accountsController, mailroom: dependencies.mailroom, attempts: dependencies.signInFailures)
        accounts = AccountsCoordinator(accounts: accountsController, emails: emailController, profiles: profileController, devices: devices)
        profiles = ProfilesCoordinator(
            controller: profileController, accounts: accountsController, emails: emailController,
            exports: ExportController(store: store, mail: dependencies.mailroom.storage, now: dependencies.now))
        let live = dependencies.live
        system = SystemCoordinator(
            staticFiles: dependencies.staticFiles, metrics: dependencies.metrics,
            developmentReload: dependencies.isDevelopment
                ? DevelopmentReload(folders: live.watchedFolders, interval: live.watchInterval, heartbeatInterval: live.heartbeatInterval)
                : nil)
        self.feed = feed
        self.sessions = sessions
        let protection = CSRFProtection(key: dependencies.csrfKey)
        logger = dependencies.logger.labeled("app")
        readYourWrites = ReadYourWritesGate(
            store: store, seen: SeenWriteCookie(bookSecret: dependencies.csrfKey, names: cookies), logger: logger)
        visitors = VisitorGate(sessions: sessions, store: store, csrf: protection, cookies: cookies, now: dependencies.now)
        csrf = CSRFGate(csrf: protection, cookies: cookies)
        pageTags = PageTagGate(
            bootID: SecureRandom.bytes(16), tagsPages: !dependencies.isDevelopment,
            pageCache: dependencies.isDevelopment ? nil : PageCache())
        renderer = PageRenderer(
            source: dependencies.templates, showsErrorDetails: dependencies.isDevelopment,
            reloadsOnChange: dependencies.isDevelopment, logger: dependencies.logger.labeled("view"))
        requestCounters = dependencies.metrics?.requests
    }

    /// Quote event streams open now (for tests and metrics).
    package var openEventStreams: Int { feed.listenerCount }
    /// Signed-out pages kept now (0 in `--dev`), for tests and diagnostics.
    package var cachedPageCount: Int { pageTags.pageCache?.count ?? 0 }

    /// The request's context, built once from its head: for a POST, before its body is read.
    package func prepare(_ head: HTTPRequest) -> RequestContext {
        RequestContext(head)
    }

    package func reply(to request: HTTPRequest, in context: RequestContext) -> Step<HTTPResponse> {
        context.request = request
        return reply(context)
    }

    private func reply(_ context: RequestContext) -> Step<HTTPResponse> {
        let request = context.request
        let step = readYourWrites.pass(context).then { [self] context -> Step<HTTPResponse> in
            let anonymous = visitors.isAnonymous(context)
            if let (response, label) = pageTags.cachedPage(for: context, anonymous: anonymous) {
                requestCounters?.count(label, status: response.status.code)
                return .now(response)
            }
            // A path that is not one (origin-form, UTF-8) is a 404 before anything else.
            return (context.match == nil ? .now(context) : visitors.pass(context))
                .then { self.route($0) }
                .recovering { self.failed(context, error: $0) }
                .then { self.resolve($0) }
                .then { .now(self.finish($0.response, $0.context, anonymous: anonymous)) }
        }
        switch step {
        case .now(let response):
            return .now(response)
        case .later(let work):
            return .later { [self] in
                do { return try await work() } catch {
                    // Only what fails before a context could be kept gets here (catching up).
                    logger.error("\(request.method) \(request.path) failed: \(error)")
                    return finish(renderer.response(for: ErrorView.page(for: Self.failure(for: error)), visitor: Visitor()), context, anonymous: false)
                }
            }
        }
    }

    /// The answer to a POST whose cookies cannot carry a valid CSRF binding — no session cookie
    /// and no well-formed pre-session cookie — from its head, so that its body is never read: the
    /// same path as every request, which for such a POST decides (its route's 404 or 405, else
    /// the 403 of SPEC.md's order of checks) before the form is needed. Nil for anything else.
    package func replyBeforeBody(in context: RequestContext) -> Step<HTTPResponse>? {
        guard context.request.method == .post, !csrf.mayHaveBinding(context) else { return nil }
        return reply(context)
    }

    /// A request whose body was over its limit takes the same path as every other: the CSRF
    /// gate sees the refusal and answers the 413 page, or lets the upload's own flow say so
    /// beside its field.
    package func replyToRefusedBody(_ request: HTTPRequest, in context: RequestContext) -> Step<HTTPResponse> {
        reply(to: request, in: context)
    }

    /// Requests the server refused before routing (malformed, over a limit, too slow) are
    /// counted too, under `rejected`.
    package func rejected(_ rejection: HTTPRejection) {
        requestCounters?.count(.rejected, status: rejection.status.code)
    }

    /// A request and what it leads to.
    private typealias Routed = (context: RequestContext, navigation: Navigation)

    /// Runs the gates for the request's route and starts its child's flow; 404 or 405 (or a file
    /// of `Public/`) when no route claims it.
    private func route(_ context: RequestContext) -> Step<Routed> {
        switch context.match {
        case nil:
            return .now((context, .present(ErrorView.page(for: .notFound))))
        case .notFound:
            guard let file = system.staticFile(for: context.request) else { return .now((context, .present(ErrorView.page(for: .notFound)))) }
            context.routeLabel = .staticFile
            return .now((context, file))
        case .methodNotAllowed(let allowed):
            return .now((context, .present(ErrorView.page(for: .methodNotAllowed(allowed)))))
        case .found(let route):
            context.routeLabel = route.metricsLabel
            if let decision = csrf.check(route, context) ?? access.check(route, context) { return .now((context, decision)) }
            csrf.offerToken(route, context)
            if let decision = pageTags.check(route, context) { return .now((context, decision)) }
            let started = context
            return start(route, context)
                .then { .now((started, $0)) }
                .recovering { self.failed(started, error: $0) }
        }
    }

    /// The flow of the child whose route it is.
    private func start(_ route: AppRoute, _ context: RequestContext) -> Step<Navigation> {
        switch route {
        case .quotes(let route): quotes.start(route, context)
        case .accounts(let route): accounts.start(route, context)
        case .profiles(let route): profiles.start(route, context)
        case .system(let route): system.start(route, context)
        case .moderation(let route): moderation.start(route, context)
        }
    }

    /// Performs a navigation: renders, redirects, passes a response through, or first asks the
    /// parent where a finished flow leads.
    private func resolve(_ routed: Routed) -> Step<(context: RequestContext, response: HTTPResponse)> {
        let (context, navigation) = Self.untaggedUnlessPage(routed)
        switch navigation {
        case .present(let page):
            return .now((context, pageTags.tagged(renderer.response(for: page, visitor: context.visitor), context)))
        case .redirect(let location):
            return .now((context, .seeOther(location.path)))
        case .respond(let response):
            return .now((context, response))
        case .finished(let outcome):
            return onFlowFinished(outcome, context)
                .recovering { self.failed(context, error: $0) }
                .then { self.resolve($0) }
        }
    }

    /// Only a page presented is tagged and kept: a file, a photo, a stream or a redirect is not.
    private static func untaggedUnlessPage(_ routed: Routed) -> Routed {
        if case .present = routed.navigation { return routed }
        routed.context.pageTag = nil
        return routed
    }

    /// The parent's decision when a child's flow ends (`onFlowFinished`).
    private func onFlowFinished(_ outcome: FlowOutcome, _ context: RequestContext) -> Step<Routed> {
        switch outcome {
        case .quoteSaved(let id), .favouriteChosen(let id):
            return .now((context, .push(QuotesRoute.show(id))))
        case .quoteDeleted:
            return .now((context, .push(QuotesRoute.list(page: 1))))
        case let .signedIn(session, returnTo):
            let sessionName = visitors.cookies.name(.session)
            context.setCookies.removeAll { $0.name == sessionName }
            context.setCookies.append(visitors.sessionCookie(session.token))
            context.setCookies.append(devices.setting(for: session.record.userID))
            let next = Navigation.redirect(returnTo.flatMap(AppRoute.location(for:)) ?? Location(QuotesRoute.home))
            guard let old = context.visitor.session else { return .now((context, next)) }
            return .later { [sessions, context] in
                try await sessions.end(old)
                return (context, next)
            }
        case .signedOut:
            context.setCookies.append(visitors.cookies.deleting(.session))
            return .now((context, .push(QuotesRoute.home)))
        case .profileUpdated(let username):
            return .now((context, .push(ProfilesRoute.show(username))))
        case let .passwordChanged(session, username):
            // The controller already ended every other session, the old one of this browser too.
            let sessionName = visitors.cookies.name(.session)
            context.setCookies.removeAll { $0.name == sessionName }
            context.setCookies.append(visitors.sessionCookie(session.token))
            return .now((context, .push(ProfilesRoute.show(username))))
        }
    }

    /// The error page for a failure, logged: 503 with `Retry-After` when the database is out of
    /// reach for a moment (a restart), else the generic 500.
    private func failed(_ context: RequestContext, error: any Error) -> Routed {
        logger.error("\(context.request.method) \(context.request.path) failed: \(error)")
        return (context, .present(ErrorView.page(for: Self.failure(for: error))))
    }

    package static func failure(for error: any Error) -> ErrorView.Failure {
        if let error = error as? StoreError, error.isDatabaseUnavailable { return .databaseUnavailable(details: "\(error)") }
        return .serverFault(details: "\(error)")
    }

    /// Adds the cookies the request collected (and `no-store` when there are any), counts the
    /// answer, and keeps the page of a visitor who is nobody.
    private func finish(_ response: HTTPResponse, _ context: RequestContext, anonymous: Bool) -> HTTPResponse {
        var response = response
        var setCookies = context.setCookies
        if let seen = readYourWrites.cookie(after: response, to: context) { setCookies.append(seen) }
        for cookie in setCookies { response.headers.add(name: "Set-Cookie", value: cookie.headerValue) }
        if !setCookies.isEmpty { response.headers.set(name: "Cache-Control", value: "no-store") }
        requestCounters?.count(context.routeLabel, status: response.status.code)
        pageTags.keep(response, for: context, anonymous: anonymous)
        return response
    }
}

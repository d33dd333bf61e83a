package import Basics
import Foundation
package import HTTPServer
import Logging
import Store

/// The root of the coordinator tree and the server's responder.
///
/// Every request takes one path: a ``RequestContext`` built once from its head (cookies, route),
/// then one chain of links in SPEC.md's order, listed in `AppCoordinator+Chain.swift`: the
/// visitor's own saves, the kept page of a visitor who is nobody, who is asking, the CSRF token
/// of a POST, access, the writes an account and an address may make, a notice a redirect left
/// for the page, the page's tag, and last the flow
/// of the child whose route it is (``FlowHandler``). Each link answers a ``Step``: the whole
/// path runs on the event loop while nothing must wait, and suspends only where something does
/// (storage, a password hash).
///
/// The root adds the cookies the request collected to its answer, counts it, and is the one
/// boundary where errors the chain lets through become responses (a 500 page, details only in
/// development; 503 when the database is out of reach).
package final class AppCoordinator: HTTPResponder {
    /// The request chain, from read-your-writes to the child's flow.
    private let chain: RequestChain
    /// Fans the store's quote changes out to open quote pages.
    private let feed: QuoteFeed
    /// Signed-out visitors' pages; nil in `--dev`.
    private let pageCache: PageCache?
    private let cookies: AppCookies
    private let renderer: PageRenderer
    private let logger: Logger
    /// Counts every answer by route and status (`--metrics`); nil counts nothing.
    private let requestCounters: HTTPRequestCounters?

    /// Builds the tree: the root creates its children and injects what each needs.
    package init(dependencies: Dependencies) {
        let store = dependencies.store
        let sessions = SessionKeeper(
            storage: dependencies.sessionStorage, sessionsPerAccount: dependencies.accountLimits.sessionsPerAccount,
            logger: dependencies.logger.labeled("sessions"))
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
        let quotes = QuotesCoordinator(
            controller: QuoteController(store: store, now: dependencies.now), feed: feed, moderation: moderationController)
        let moderation = ModerationCoordinator(controller: moderationController, profiles: profileController)
        let cookies = AppCookies(isSecure: dependencies.secureCookies)
        let devices = KnownDeviceCookie(bookSecret: dependencies.csrfKey, names: cookies)
        let emailController = EmailController(
            accounts: accountsController, mailroom: dependencies.mailroom, attempts: dependencies.signInFailures)
        let accounts = AccountsCoordinator(
            accounts: accountsController, emails: emailController, profiles: profileController, devices: devices)
        let profiles = ProfilesCoordinator(
            controller: profileController, accounts: accountsController, emails: emailController,
            exports: ExportController(store: store, mail: dependencies.mailroom.storage, now: dependencies.now))
        let live = dependencies.live
        let system = SystemCoordinator(
            staticFiles: dependencies.staticFiles, metrics: dependencies.metrics,
            developmentReload: dependencies.isDevelopment
                ? DevelopmentReload(folders: live.watchedFolders, interval: live.watchInterval, heartbeatInterval: live.heartbeatInterval)
                : nil)
        let logger = dependencies.logger.labeled("app")
        // Versioned addresses but in --dev, where the files change under the running server.
        let staticFiles = dependencies.staticFiles
        let assets = dependencies.isDevelopment ? AssetAddresses.unversioned : AssetAddresses { staticFiles.version(of: $0.path) }
        let renderer = PageRenderer(
            source: dependencies.templates, showsErrorDetails: dependencies.isDevelopment,
            reloadsOnChange: dependencies.isDevelopment, assets: assets, logger: dependencies.logger.labeled("view"))
        let pageCache = dependencies.isDevelopment ? nil : PageCache()
        let flows = FlowHandler(
            quotes: quotes, accounts: accounts, profiles: profiles, system: system, moderation: moderation, sessions: sessions,
            cookies: cookies, devices: devices, renderer: renderer, logger: logger)
        chain = Self.makeChain(
            dependencies: dependencies, sessions: sessions, cookies: cookies, pageCache: pageCache, renderer: renderer, logger: logger,
            then: flows)
        self.feed = feed
        self.pageCache = pageCache
        self.cookies = cookies
        self.renderer = renderer
        self.logger = logger
        requestCounters = dependencies.metrics?.requests
    }

    /// Quote event streams open now (for tests and metrics).
    package var openEventStreams: Int { feed.listenerCount }
    /// Signed-out pages kept now (0 in `--dev`), for tests and diagnostics.
    package var cachedPageCount: Int { pageCache?.count ?? 0 }

    /// The request's context, built once from its head: for a POST, before its body is read.
    package func prepare(_ head: HTTPRequest) -> RequestContext {
        RequestContext(head)
    }

    package func reply(to request: HTTPRequest, in context: RequestContext) -> Step<HTTPResponse> {
        context.request = request
        return reply(context)
    }

    /// The chain's answer with the cookies the request collected; what fails in the chain
    /// without a link answering it (only finding out who is asking can: session storage) is the
    /// error page, counted under `unmatched` as no route answered it.
    private func reply(_ context: RequestContext) -> Step<HTTPResponse> {
        switch chain.handle(context) {
        case .now(let response):
            return .now(finish(response, context))
        case .later(let work):
            return .later { [self] in
                do { return finish(try await work(), context) } catch {
                    logger.error("\(context.request.method) \(context.request.path) failed: \(error)")
                    context.routeLabel = .unmatched
                    let page = ErrorView.page(for: Self.failure(for: error))
                    return finish(renderer.response(for: page, visitor: context.visitor), context)
                }
            }
        }
    }

    /// The answer to a POST whose cookies cannot carry a valid CSRF binding — no session cookie
    /// and no well-formed pre-session cookie — from its head, so that its body is never read: the
    /// same path as every request, which for such a POST decides (its route's 404 or 405, else
    /// the 403 of SPEC.md's order of checks) before the form is needed. Nil for anything else.
    package func replyBeforeBody(in context: RequestContext) -> Step<HTTPResponse>? {
        guard context.request.method == .post, !cookies.mayCarryCSRFBinding(context.cookies) else { return nil }
        return reply(context)
    }

    /// A request whose body was over its limit takes the same path as every other: the CSRF
    /// link sees the refusal and answers the 413 page, or lets the upload's own flow say so
    /// beside its field.
    package func replyToRefusedBody(_ request: HTTPRequest, in context: RequestContext) -> Step<HTTPResponse> {
        reply(to: request, in: context)
    }

    /// Requests the server refused before routing (malformed, over a limit, too slow) are
    /// counted too, under `rejected`.
    package func rejected(_ rejection: HTTPRejection) {
        requestCounters?.count(.rejected, status: rejection.status.code)
    }

    /// The error page's failure for `error`: 503 with `Retry-After` when the database is out of
    /// reach for a moment (a restart), else the generic 500.
    package static func failure(for error: any Error) -> ErrorView.Failure {
        if let error = error as? StoreError, error.isDatabaseUnavailable { return .databaseUnavailable(details: "\(error)") }
        return .serverFault(details: "\(error)")
    }

    /// Adds the cookies the request collected (and `no-store` when there are any) and counts the
    /// answer.
    private func finish(_ response: consuming HTTPResponse, _ context: RequestContext) -> HTTPResponse {
        var response = response
        for cookie in context.setCookies { response.headers.add(name: "Set-Cookie", value: cookie.headerValue) }
        if !context.setCookies.isEmpty { response.headers.set(name: "Cache-Control", value: "no-store") }
        requestCounters?.count(context.routeLabel, status: response.status.code)
        return response
    }
}

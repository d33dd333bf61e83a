import Basics
import HTTPServer
import Logging
import Store

/// The chain's last link: the flow of the child coordinator whose route it is, and where it
/// leads; 404 or 405 (or a file of `Public/`) when no route claims the request.
///
/// It performs each navigation (renders, redirects, passes a response through) and decides as
/// the parent where a finished flow leads (`onFlowFinished`: setting and clearing the session
/// cookie). A flow's failure becomes its error page here, counted under the route: 503 with
/// `Retry-After` when the database is out of reach for a moment (a restart), else the generic 500.
final class FlowHandler: RequestHandler {
    let quotes: QuotesCoordinator
    let accounts: AccountsCoordinator
    let profiles: ProfilesCoordinator
    let system: SystemCoordinator
    let moderation: ModerationCoordinator
    let sessions: SessionKeeper
    let cookies: AppCookies
    /// Marks a browser that signs in as known to the account (its own sign-in limit).
    let devices: KnownDeviceCookie
    let renderer: PageRenderer
    let logger: Logger

    init(quotes: QuotesCoordinator, accounts: AccountsCoordinator, profiles: ProfilesCoordinator, system: SystemCoordinator, moderation: ModerationCoordinator, sessions: SessionKeeper, cookies: AppCookies, devices: KnownDeviceCookie, renderer: PageRenderer, logger: Logger) {
        self.quotes = quotes
        self.accounts = accounts
        self.profiles = profiles
        self.system = system
        self.moderation = moderation
        self.sessions = sessions
        self.cookies = cookies
        self.devices = devices
        self.renderer = renderer
        self.logger = logger
    }

    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        switch context.match {
        case nil:
            return perform(.present(ErrorView.page(for: .notFound)), context)
        case .notFound:
            guard let file = system.staticFile(for: context.request) else {
                return perform(.present(ErrorView.page(for: .notFound)), context)
            }
            context.routeLabel = .staticFile
            return perform(file, context)
        case .methodNotAllowed(let allowed):
            return perform(.present(ErrorView.page(for: .methodNotAllowed(allowed))), context)
        case .found(let route):
            return perform(start(route, context), context)
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

    /// Performs a navigation once it is decided; a failure to decide it is its error page.
    private func perform(_ navigation: Step<Navigation>, _ context: RequestContext) -> Step<HTTPResponse> {
        switch navigation {
        case .now(let navigation):
            return perform(navigation, context)
        case .later(let work):
            return .later { [self, context] in
                let navigation: Navigation
                do { navigation = try await work() } catch { navigation = failed(context, error: error) }
                return try await perform(navigation, context).value()
            }
        }
    }

    /// Performs a navigation: renders, redirects, passes a response through, or first decides
    /// where a finished flow leads. Only a page presented keeps its tag (``PageTagMiddleware``)
    /// and may be kept (``PageCacheMiddleware``): a file, a photo, a stream or a redirect not.
    private func perform(_ navigation: Navigation, _ context: RequestContext) -> Step<HTTPResponse> {
        switch navigation {
        case .present(let page):
            return .now(renderer.response(for: page, visitor: context.visitor))
        case .redirect(let location):
            context.pageTagging = .none
            return .now(.seeOther(location.path))
        case .respond(let response):
            context.pageTagging = .none
            return .now(response)
        case .finished(let outcome):
            context.pageTagging = .none
            return perform(onFlowFinished(outcome, context), context)
        }
    }

    /// The parent's decision when a child's flow ends (`onFlowFinished`).
    private func onFlowFinished(_ outcome: FlowOutcome, _ context: RequestContext) -> Step<Navigation> {
        switch outcome {
        case .quoteSaved(let id), .favouriteChosen(let id):
            return .now(.push(QuotesRoute.show(id)))
        case .quoteDeleted:
            return .now(.push(QuotesRoute.list(page: 1)))
        case .quoteReported(let id):
            context.setCookies.append(cookies.setting(.notice, to: PageNotice.reported(id).cookieValue, maxAge: PageNotice.lifetime))
            return .now(.push(QuotesRoute.show(id)))
        case let .signedIn(session, returnTo):
            let sessionName = cookies.name(.session)
            context.setCookies.removeAll { $0.name == sessionName }
            context.setCookies.append(cookies.session(session.token))
            context.setCookies.append(devices.setting(for: session.record.userID))
            let next = Navigation.redirect(returnTo.flatMap(AppRoute.location(for:)) ?? Location(QuotesRoute.home))
            guard let old = context.visitor.session else { return .now(next) }
            return .later { [sessions] in
                try await sessions.end(old)
                return next
            }
        case .signedOut:
            context.setCookies.append(cookies.deleting(.session))
            return .now(.push(QuotesRoute.home))
        case .profileUpdated(let username):
            return .now(.push(ProfilesRoute.show(username)))
        case let .passwordChanged(session, username):
            // The controller already ended every other session, the old one of this browser too.
            let sessionName = cookies.name(.session)
            context.setCookies.removeAll { $0.name == sessionName }
            context.setCookies.append(cookies.session(session.token))
            return .now(.push(ProfilesRoute.show(username)))
        }
    }

    /// The error page for a failure, logged.
    private func failed(_ context: RequestContext, error: any Error) -> Navigation {
        logger.error("\(context.request.method) \(context.request.path) failed: \(error)")
        return .present(ErrorView.page(for: AppCoordinator.failure(for: error)))
    }
}

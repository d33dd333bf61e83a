import Basics
import HTTPServer

/// Who may use a route (SPEC.md "Pages", column *who*): signed-out people asking for a page that
/// needs an account go to the sign-in page (a GET with `return_to`, so they come back), and
/// signed-in people asking for one only for the signed-out go home.
final class AccessMiddleware: RequestMiddleware {
    let renderer: PageRenderer

    init(renderer: PageRenderer) {
        self.renderer = renderer
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let route = context.route else { return next.handle(context) }
        switch route.access {
        case .signedIn where !context.visitor.isSignedIn, .moderators where !context.visitor.isSignedIn:
            let returnTo = route.method == .get ? ReturnPath(context.request.target) : nil
            return .now(.seeOther(Location(AccountsRoute.signInForm(returnTo: returnTo)).path))
        case .signedOut where context.visitor.isSignedIn:
            return .now(.seeOther(Location(QuotesRoute.home).path))
        case .moderators where !context.visitor.isModerator:
            let page = ErrorView.page(for: .forbidden("Only moderators may see this page or do this."))
            return .now(renderer.response(for: page, visitor: context.visitor))
        default:
            return next.handle(context)
        }
    }
}

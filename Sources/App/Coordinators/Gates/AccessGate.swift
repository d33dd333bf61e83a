import HTTPServer
/// Who may use a route (SPEC.md "Pages", column *who*): signed-out people asking for a page that
/// needs an account go to the sign-in page (a GET with `return_to`, so they come back), and
/// signed-in people asking for one only for the signed-out go home.
struct AccessGate: Sendable {
    func check(_ route: AppRoute, _ context: RequestContext) -> Navigation? {
        switch route.access {
        case .signedIn where !context.visitor.isSignedIn, .moderators where !context.visitor.isSignedIn:
            let returnTo = route.method == .get ? ReturnPath(context.request.target) : nil
            return .push(AccountsRoute.signInForm(returnTo: returnTo))
        case .signedOut where context.visitor.isSignedIn:
            return .push(QuotesRoute.home)
        case .moderators where !context.visitor.isModerator:
            return .present(ErrorView.page(for: .forbidden("Only moderators may see this page or do this.")))
        default:
            return nil
        }
    }
}

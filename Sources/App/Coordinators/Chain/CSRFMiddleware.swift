import Basics
import HTTPServer
import Store

/// A POST must carry the CSRF token of the visitor's session or pre-session cookie (SPEC.md
/// "Sessions and security"); pages with forms for signed-out people give a visitor without a
/// pre-session cookie one, so that their token has something to be bound to.
///
/// Without a binding no token can be right, whatever the body: that 403 is decided from the
/// request's head, before the form is read (``AppCoordinator/replyBeforeBody(in:)``).
final class CSRFMiddleware: RequestMiddleware {
    let csrf: CSRFProtection
    let cookies: AppCookies
    let renderer: PageRenderer

    init(csrf: CSRFProtection, cookies: AppCookies, renderer: PageRenderer) {
        self.csrf = csrf
        self.cookies = cookies
        self.renderer = renderer
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let route = context.route else { return next.handle(context) }
        if let refusal = check(route, context) { return .now(renderer.response(for: refusal, visitor: context.visitor)) }
        offerToken(route, context)
        return next.handle(context)
    }

    /// The 403 page (or 400 for a form that cannot be read, 413 for one too large) a POST to
    /// `route` gets, or nil with the decoded form in `context`.
    private func check(_ route: AppRoute, _ context: RequestContext) -> Page? {
        guard route.method == .post else { return nil }
        guard let binding = binding(of: context) else { return Self.expired }
        if case .tooLarge(let limit) = context.request.bodyRefusal {
            // No form arrived to check a token in, and nothing is changed: the upload's own flow
            // says so beside its field, any other route with the 413 page.
            return route.takesUploads ? nil : ErrorView.page(for: .contentTooLarge(limit: limit))
        }
        guard let form = SubmittedForm(context.request) else {
            return ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again."))
        }
        guard csrf.isValid(form[CSRFField.token], for: binding) else { return Self.expired }
        context.form = form
        return nil
    }

    /// Gives a visitor without any binding a pre-session cookie and its token, on the pages of a
    /// route whose forms are for signed-out people. Before ``AccessMiddleware``, yet never on
    /// its redirect: such a route is open to signed-out visitors, but for signing out, a POST,
    /// whose check above already needed a binding, so a visitor without one never gets here.
    private func offerToken(_ route: AppRoute, _ context: RequestContext) {
        guard route.offersSignedOutForms, context.visitor.csrfToken == nil else { return }
        let value = CSRFProtection.makePreSessionValue()
        context.setCookies.append(cookies.setting(.preSession, to: value))
        context.visitor.csrfToken = csrf.token(for: .preSession(value))
    }

    /// What a POST's CSRF token must be bound to: the session, or the pre-session cookie.
    private func binding(of context: RequestContext) -> CSRFProtection.Binding? {
        if let session = context.visitor.session { return .session(id: session.id) }
        guard let value = cookies.value(.preSession, in: context.cookies), CSRFProtection.isPreSessionValue(value) else {
            return nil
        }
        return .preSession(value)
    }

    private static let expired = ErrorView.page(for: .forbidden(ErrorView.expiredFormMessage))
}

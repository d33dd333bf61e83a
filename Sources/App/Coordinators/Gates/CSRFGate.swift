import HTTPServer
import Store

/// A POST must carry the CSRF token of the visitor's session or pre-session cookie (SPEC.md
/// "Sessions and security"); pages with forms for signed-out people give a visitor without a
/// pre-session cookie one, so that their token has something to be bound to.
///
/// Without a binding no token can be right, whatever the body: that 403 is decided from the
/// request's head, before the form is read (``AppCoordinator/replyBeforeBody(in:)``).
struct CSRFGate: Sendable {
    let csrf: CSRFProtection
    let cookies: AppCookies

    /// The 403 (or 400 for a form that cannot be read) a POST to `route` gets, or nil with the
    /// decoded form in `context`.
    func check(_ route: AppRoute, _ context: RequestContext) -> Navigation? {
        guard route.method == .post else { return nil }
        guard let binding = binding(of: context) else { return Self.expired }
        if case .tooLarge(let limit) = context.request.bodyRefusal {
            // No form arrived to check a token in, and nothing is changed: the upload's own flow
            // says so beside its field, any other route with the 413 page.
            return route.takesUploads ? nil : .present(ErrorView.page(for: .contentTooLarge(limit: limit)))
        }
        guard let form = SubmittedForm(context.request) else {
            return .present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again.")))
        }
        guard csrf.isValid(form[CSRFField.token], for: binding) else { return Self.expired }
        context.form = form
        return nil
    }

    /// Gives a visitor without any binding a pre-session cookie and its token, on the pages of a
    /// route whose forms are for signed-out people (after ``AccessGate``: not on a redirect).
    func offerToken(_ route: AppRoute, _ context: RequestContext) {
        guard route.offersSignedOutForms, context.visitor.csrfToken == nil else { return }
        let value = CSRFProtection.makePreSessionValue()
        context.setCookies.append(cookies.setting(.preSession, to: value))
        context.visitor.csrfToken = csrf.token(for: .preSession(value))
    }

    /// What a POST's CSRF token must be bound to: the session, or the pre-session cookie.
    func binding(of context: RequestContext) -> CSRFProtection.Binding? {
        if let session = context.visitor.session { return .session(id: session.id) }
        guard let value = cookies.value(.preSession, in: context.cookies), CSRFProtection.isPreSessionValue(value) else {
            return nil
        }
        return .preSession(value)
    }

    /// Whether the request's cookies could carry a binding: a session cookie (which only storage
    /// may tell is live) or a well-formed pre-session cookie.
    func mayHaveBinding(_ context: RequestContext) -> Bool {
        cookies.has(.session, in: context.cookies) || binding(of: context) != nil
    }

    private static let expired = Navigation.present(ErrorView.page(for: .forbidden(ErrorView.expiredFormMessage)))
}

package import HTTPServer

/// Signing up, in and out.
package enum AccountsRoute: Route {
    /// `GET /signup`
    case signUpForm
    /// `POST /signup`
    case signUp
    /// `GET /login?return_to=…`: where to go after signing in, if a protected page sent them.
    case signInForm(returnTo: ReturnPath?)
    /// `POST /login`
    case signIn
    /// `POST /logout`
    case signOut
    /// `GET /password/forgot`
    case forgotForm
    /// `POST /password/forgot`
    case forgot
    /// `GET /password/reset?token=T`: the mailed link (a dead token gets the 410 page).
    case resetForm(token: String)
    /// `POST /password/reset`
    case reset
    /// `GET /email/verify?token=T`: the mailed link opens a page with one button, since mail
    /// scanners open links.
    case verifyForm(token: String)
    /// `POST /email/verify`
    case verify

    package static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<AccountsRoute> {
        // By count and by segment (``PathSegments/shape(of:)``), not over array literals, which
        // compared whole arrays case by case for every request no earlier area claimed.
        switch PathSegments.shape(of: segments) {
        case (1, "signup", _): [.signUpForm, .signUp]
        case (1, "login", _): [.signInForm(returnTo: query[SignInField.returnTo.rawValue].flatMap(ReturnPath.init)), .signIn]
        case (1, "logout", _): [.signOut]
        case (2, "password", "forgot"): [.forgotForm, .forgot]
        case (2, "password", "reset"): [.resetForm(token: query[ResetPasswordField.token.rawValue] ?? ""), .reset]
        case (2, "email", "verify"): [.verifyForm(token: query[VerifyEmailField.token.rawValue] ?? ""), .verify]
        default: []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .signUpForm, .signInForm, .forgotForm, .resetForm, .verifyForm: .get
        case .signUp, .signIn, .signOut, .forgot, .reset, .verify: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .signUpForm, .signUp: ["signup"]
        case .signInForm, .signIn: ["login"]
        case .signOut: ["logout"]
        case .forgotForm, .forgot: ["password", "forgot"]
        case .resetForm, .reset: ["password", "reset"]
        case .verifyForm, .verify: ["email", "verify"]
        }
    }

    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .signInForm(let returnTo?): [(SignInField.returnTo.rawValue, returnTo.rawValue)]
        case .resetForm(let token): [(ResetPasswordField.token.rawValue, token)]
        case .verifyForm(let token): [(VerifyEmailField.token.rawValue, token)]
        default: []
        }
    }

    package var access: RouteAccess {
        switch self {
        case .signUpForm, .signUp: .signedOut
        case .signInForm, .signIn, .forgotForm, .forgot, .resetForm, .reset, .verifyForm, .verify: .anyone
        case .signOut: .signedIn
        }
    }

    /// Signing up, in and out and the mail links have limits of their own, or write no action.
    package var isMemberWrite: Bool {
        switch self {
        case .signUpForm, .signUp, .signInForm, .signIn, .signOut, .forgotForm, .forgot, .resetForm, .reset, .verifyForm, .verify:
            false
        }
    }

    /// The link pages answer from account storage (is the token alive?), which changes without
    /// the state: tagged from their rendered bytes, unless they carry the token (`no-store`).
    package var isTaggedByState: Bool {
        switch self {
        case .resetForm, .verifyForm: false
        default: true
        }
    }

    /// The request counters' name for this case (``RouteLabel``).
    package var metricsLabel: RouteLabel {
        switch self {
        case .signUpForm: "accounts_sign_up_form"
        case .signUp: "accounts_sign_up"
        case .signInForm: "accounts_sign_in_form"
        case .signIn: "accounts_sign_in"
        case .signOut: "accounts_sign_out"
        case .forgotForm: "accounts_forgot_form"
        case .forgot: "accounts_forgot"
        case .resetForm: "accounts_reset_form"
        case .reset: "accounts_reset"
        case .verifyForm: "accounts_verify_form"
        case .verify: "accounts_verify"
        }
    }
}

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

    package static func routes(at segments: [String], query: URLEncodedForm) -> [AccountsRoute] {
        switch segments {
        case ["signup"]: [.signUpForm, .signUp]
        case ["login"]: [.signInForm(returnTo: query[SignInField.returnTo.rawValue].flatMap(ReturnPath.init)), .signIn]
        case ["logout"]: [.signOut]
        default: []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .signUpForm, .signInForm: .get
        case .signUp, .signIn, .signOut: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .signUpForm, .signUp: ["signup"]
        case .signInForm, .signIn: ["login"]
        case .signOut: ["logout"]
        }
    }

    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .signInForm(let returnTo?): [(SignInField.returnTo.rawValue, returnTo.rawValue)]
        default: []
        }
    }

    package var access: RouteAccess {
        switch self {
        case .signUpForm, .signUp: .signedOut
        case .signInForm, .signIn: .anyone
        case .signOut: .signedIn
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
        }
    }
}

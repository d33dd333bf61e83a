package import Basics
import HTTPServer
import Store

/// The sign-up, sign-in and sign-out flows, and the flows of mailed links: verifying an address
/// and getting back into an account. A flow that succeeds reports `signedIn` or `signedOut` to
/// the root, which sets the cookie and decides the next page (including the `return_to` a
/// protected page asked for); a link's flow leads to the page SPEC.md names.
package struct AccountsCoordinator: FlowCoordinator {
    private let accounts: AccountsController
    private let emails: EmailController
    private let profiles: ProfileController
    /// Reads which account, if any, this browser has signed in to before.
    private let devices: KnownDeviceCookie

    package init(accounts: AccountsController, emails: EmailController, profiles: ProfileController, devices: KnownDeviceCookie) {
        self.accounts = accounts
        self.emails = emails
        self.profiles = profiles
        self.devices = devices
    }

    package func start(_ route: AccountsRoute, _ context: RequestContext) -> Step<Navigation> {
        let form = context.form
        let client = Self.client(of: context.request)
        let userAgent = context.request.headers["User-Agent"]
        switch route {
        case .signUpForm:
            let empty = SignUpForm(username: "", displayName: "", password: "", passwordConfirmation: "")
            return .now(.present(SignUpView.page(for: .editing(empty, problems: [:]))))
        case .signUp:
            let typed = SignUpForm(
                username: form[SignUpField.username] ?? "", displayName: form[SignUpField.displayName] ?? "",
                password: form[SignUpField.password] ?? "", passwordConfirmation: form[SignUpField.passwordConfirmation] ?? "",
                email: form[SignUpField.email] ?? ""
            )
            return .later { [accounts, emails] in
                switch try await accounts.signUp(typed, client: client, userAgent: userAgent) {
                case .showing(let page):
                    return .present(SignUpView.page(for: page))
                case let .signedUp(user, session, email):
                    // A new account's first address mail is within its allowance.
                    if let email { await emails.requestAtSignUp(email, for: user) }
                    return .finished(.signedIn(session, returnTo: nil))
                }
            }
        case .signInForm(let returnTo):
            return .now(.present(SignInView.page(for: .form(username: "", returnTo: returnTo))))
        case .signIn:
            let returnTo = form[SignInField.returnTo].flatMap(ReturnPath.init)
            let username = form[SignInField.username] ?? ""
            let password = form[SignInField.password] ?? ""
            let device = devices.device(in: context.cookies)
            return .later { [accounts] in
                switch try await accounts.signIn(
                    username: username, password: password, returnTo: returnTo, client: client, userAgent: userAgent, device: device) {
                case .showing(let page): .present(SignInView.page(for: page))
                case .signedIn(_, let session, let returnTo): .finished(.signedIn(session, returnTo: returnTo))
                }
            }
        case .forgotForm, .forgot, .resetForm, .reset, .verifyForm, .verify:
            return recovery(route, context)
        case .signOut:
            guard let session = context.visitor.session else { return .now(.finished(.signedOut)) }
            return .later { [profiles] in
                _ = try await profiles.signOut(session)
                return .finished(.signedOut)
            }
        }
    }

    /// The flows of mailed links and of asking for one.
    private func recovery(_ route: AccountsRoute, _ context: RequestContext) -> Step<Navigation> {
        let form = context.form
        let client = Self.client(of: context.request)
        switch route {
        case .forgotForm:
            return .now(.present(ForgotPasswordView.page(for: .form(typed: "", problem: nil))))
        case .forgot:
            let typed = form[ForgotPasswordField.email] ?? ""
            return .later { [emails] in .present(ForgotPasswordView.page(for: try await emails.forgot(typed, client: client))) }
        case .resetForm(let token):
            return .later { [emails] in .present(ResetPasswordView.page(for: try await emails.resetLink(token))) }
        case .reset:
            let token = form[ResetPasswordField.token] ?? ""
            let password = form[ResetPasswordField.password] ?? ""
            let confirmation = form[ResetPasswordField.passwordConfirmation] ?? ""
            return .later { [emails] in
                switch try await emails.reset(token: token, password: password, confirmation: confirmation, client: client) {
                case .showing(let page): .present(ResetPasswordView.page(for: page))
                // Not signed in: the person signs in with the new password, which a password
                // manager can then keep (OWASP Forgot Password Cheat Sheet).
                case .reset: .push(AccountsRoute.signInForm(returnTo: nil))
                }
            }
        case .verifyForm(let token):
            return .later { [emails] in .present(VerifyEmailView.page(for: try await emails.verifyLink(token))) }
        default:
            let token = form[VerifyEmailField.token] ?? ""
            return .later { [emails] in
                switch try await emails.verify(token) {
                case .verified: .push(ProfilesRoute.edit)
                case .dead: .present(VerifyEmailView.page(for: .dead))
                case .takenByAnother: .present(DeadLinkView.takenByAnother())
                }
            }
        }
    }

    /// Who asked, as the per-address limits count it: the address the server reports, an IPv6
    /// one by its /64; nil when the server could not say.
    static func client(of request: HTTPRequest) -> String? {
        request.client.map { $0.subscriberPrefix.description }
    }
}

import HTTPServer
import Store

/// The sign-up, sign-in and sign-out flows. A flow that succeeds reports `signedIn` or
/// `signedOut` to the root, which sets the cookie and decides the next page (including the
/// `return_to` a protected page asked for); this coordinator never chooses where to go.
package struct AccountsCoordinator: FlowCoordinator {
    private let accounts: AccountsController
    private let profiles: ProfileController
    /// Reads which account, if any, this browser has signed in to before.
    private let devices: KnownDeviceCookie

    package init(accounts: AccountsController, profiles: ProfileController, devices: KnownDeviceCookie) {
        self.accounts = accounts
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
                password: form[SignUpField.password] ?? "", passwordConfirmation: form[SignUpField.passwordConfirmation] ?? ""
            )
            return .later { [accounts] in
                switch try await accounts.signUp(typed, client: client, userAgent: userAgent) {
                case .showing(let page): .present(SignUpView.page(for: page))
                case .signedUp(_, let session): .finished(.signedIn(session, returnTo: nil))
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
        case .signOut:
            guard let session = context.visitor.session else { return .now(.finished(.signedOut)) }
            return .later { [profiles] in
                _ = try await profiles.signOut(session)
                return .finished(.signedOut)
            }
        }
    }

    /// Who asked, as the per-address limits count it: the address the server reports, an IPv6
    /// one by its /64; nil when the server could not say.
    static func client(of request: HTTPRequest) -> String? {
        request.client.map { $0.subscriberPrefix.description }
    }
}

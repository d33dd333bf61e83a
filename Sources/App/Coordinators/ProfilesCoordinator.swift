package import Basics
import HTTPServer
import Store

/// Profiles: showing anyone's, serving photos, and the signed-in person's own edit flows: name,
/// photo, password and sessions; and their export.
package struct ProfilesCoordinator: FlowCoordinator {
    private let controller: ProfileController
    private let accounts: AccountsController
    private let emails: EmailController
    private let exports: ExportController

    package init(controller: ProfileController, accounts: AccountsController, emails: EmailController, exports: ExportController) {
        self.controller = controller
        self.accounts = accounts
        self.emails = emails
        self.exports = exports
    }

    package func start(_ route: ProfilesRoute, _ context: RequestContext) -> Step<Navigation> {
        let visitor = context.visitor
        let form = context.form
        switch route {
        case .show(let username, let page):
            return .now(.present(ProfileView.page(for: controller.load(username, viewer: visitor.user?.id, page: page))))
        case .photo(let username, let version), .smallPhoto(let username, let version):
            let request = context.request
            let small = if case .smallPhoto = route { true } else { false }
            return .later { [controller] in
                switch try await controller.photo(of: username, small: small) {
                case .photo(let photo): .respond(PhotoResponse.response(for: photo, version: version, request: request))
                case .notFound: .present(ErrorView.page(for: .notFound))
                }
            }
        case .passwordForm, .changePassword, .emailForm, .changeEmail, .sessions, .endSession, .endOtherSessions, .deletionForm,
            .deleteAccount:
            // The root lets only signed-in people through to these.
            guard let user = visitor.user, let session = visitor.session else { return .now(.present(ErrorView.page(for: .notFound))) }
            return security(route, user: user, session: session, context)
        case .mine, .edit, .updateName, .updatePhoto, .removePhoto, .export:
            // The root lets only signed-in people through to these.
            guard let user = visitor.user else { return .now(.present(ErrorView.page(for: .notFound))) }
            switch route {
            case .mine: return .now(.push(ProfilesRoute.show(user.username)))
            case .edit:
                return .later { [controller, emails] in
                    .present(ProfileView.page(for: controller.edit(user.id), email: try await emails.addresses(of: user.id)))
                }
            case .updateName:
                let name = form[ProfileField.displayName] ?? ""
                return .later { [controller] in Self.finish(try await controller.changeDisplayName(of: user.id, to: name)) }
            case .updatePhoto:
                if context.request.bodyRefusal != nil { return .now(Self.finish(controller.refuseOversizedPhoto(of: user.id))) }
                let photo = form.file(ProfileField.photo)
                let client = AccountsCoordinator.client(of: context.request)
                return .later { [controller] in Self.finish(try await controller.changePhoto(of: user.id, to: photo, from: client)) }
            case .export:
                return .later { [exports] in
                    switch try await exports.export(of: user.id) {
                    case .exported(let export): .respond(try ExportView.response(for: export))
                    case .notFound: .present(ErrorView.page(for: .notFound))
                    }
                }
            default:
                return .later { [controller] in Self.finish(try await controller.removePhoto(of: user.id)) }
            }
        }
    }

    /// The password and sessions flows of the signed-in `user`, asking in `session`.
    private func security(_ route: ProfilesRoute, user: User, session: SessionRecord, _ context: RequestContext) -> Step<Navigation> {
        switch route {
        case .passwordForm:
            return .now(.present(PasswordView.page(for: .editing(problems: [:]))))
        case .changePassword:
            let form = context.form
            let typed = PasswordChangeForm(
                currentPassword: form[PasswordField.currentPassword] ?? "", password: form[PasswordField.password] ?? "",
                passwordConfirmation: form[PasswordField.passwordConfirmation] ?? "")
            let client = AccountsCoordinator.client(of: context.request)
            return .later { [accounts, emails] in
                switch try await accounts.changePassword(typed, of: user, current: session, client: client) {
                case .showing(let page):
                    return .present(PasswordView.page(for: page))
                case let .changed(username, replacement):
                    await emails.noticePasswordChanged(of: user)
                    return .finished(.passwordChanged(replacement, username))
                case .overtaken:
                    return .finished(.signedOut)
                }
            }
        case .emailForm:
            return .later { [emails] in .present(EmailView.page(for: try await emails.form(of: user.id))) }
        case .changeEmail:
            let form = context.form
            let typed = form[EmailField.email] ?? ""
            let password = form[EmailField.currentPassword] ?? ""
            let client = AccountsCoordinator.client(of: context.request)
            return .later { [emails] in
                switch try await emails.changeAddress(to: typed, currentPassword: password, of: user, client: client) {
                case .showing(let page): .present(EmailView.page(for: page))
                case .requested: .push(ProfilesRoute.edit)
                }
            }
        case .sessions:
            return .later { [controller] in .present(SessionsView.page(for: try await controller.sessions(of: user.id, current: session))) }
        case .deletionForm:
            return .now(.present(AccountDeletionView.page(for: .confirming(wrongPassword: false))))
        case .deleteAccount:
            let password = context.form[AccountDeletionField.password] ?? ""
            let client = AccountsCoordinator.client(of: context.request)
            return .later { [accounts, controller] in
                switch try await accounts.deleteAccount(of: user, password: password, client: client) {
                case .showing(let page): return .present(AccountDeletionView.page(for: page))
                case .deleted(let photo):
                    if let photo { await controller.free(photo) }
                    return .finished(.signedOut)
                }
            }
        case .endSession(let handle):
            return .later { [controller] in Self.finish(try await controller.endSession(handle.id, of: user.id)) }
        default:
            return .later { [controller] in Self.finish(try await controller.endOtherSessions(of: user.id, current: session)) }
        }
    }

    private static func finish(_ state: SessionsState) -> Navigation {
        if case .ended = state { return .push(ProfilesRoute.sessions) }
        return .present(SessionsView.page(for: state))
    }

    private static func finish(_ state: ProfileState) -> Navigation {
        if case .updated(let username) = state { return .finished(.profileUpdated(username)) }
        return .present(ProfileView.page(for: state))
    }
}

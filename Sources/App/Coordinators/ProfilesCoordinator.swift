package import HTTPServer
import Store

/// Profiles: showing anyone's, serving photos, and the signed-in person's own edit flows.
package struct ProfilesCoordinator: FlowCoordinator {
    private let controller: ProfileController

    package init(controller: ProfileController) {
        self.controller = controller
    }

    package func start(_ route: ProfilesRoute, request: HTTPRequest, form: SubmittedForm, visitor: Visitor) async throws -> Navigation {
        switch route {
        case .show(let username):
            return .present(ProfileView.page(for: controller.load(username, viewer: visitor.user?.id)))
        case .photo(let username):
            switch try await controller.photo(of: username) {
            case .photo(let photo): return .respond(PhotoResponse.response(for: photo, request: request))
            case .notFound: return .present(ErrorView.page(for: .notFound))
            }
        case .mine:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            return .push(ProfilesRoute.show(user.username))
        case .edit:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            return .present(ProfileView.page(for: controller.edit(user.id)))
        case .updateName:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            return finish(try await controller.changeDisplayName(of: user.id, to: form[ProfileField.displayName] ?? ""))
        case .updatePhoto:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            return finish(try await controller.changePhoto(of: user.id, to: form.file(ProfileField.photo)))
        case .removePhoto:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            return finish(try await controller.removePhoto(of: user.id))
        }
    }

    private func finish(_ state: ProfileState) -> Navigation {
        if case .updated(let username) = state { return .finished(.profileUpdated(username)) }
        return .present(ProfileView.page(for: state))
    }
}

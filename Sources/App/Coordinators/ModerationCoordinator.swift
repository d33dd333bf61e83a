package import Basics
import HTTPServer
import Store

/// The moderators' flows: the queue, the log, dismissing a report, hiding or showing a quote,
/// and suspending or reverting a person from their profile. The root lets only moderators
/// through (``RouteAccess/moderators``); the reducer checks again, so a role taken meanwhile
/// refuses the action.
package struct ModerationCoordinator: FlowCoordinator {
    private let controller: ModerationController
    /// The profile a person's moderation forms are on, shown again with a reason's problem.
    private let profiles: ProfileController

    package init(controller: ModerationController, profiles: ProfileController) {
        self.controller = controller
        self.profiles = profiles
    }

    package func start(_ route: ModerationRoute, _ context: RequestContext) -> Step<Navigation> {
        guard let moderator = context.visitor.user?.id else { return .now(.present(ErrorView.page(for: .notFound))) }
        let reason = context.form[ModerationField.reason] ?? ""
        switch route {
        case .queue(let page):
            return .now(.present(controller.queue(page: page).map(ModerationView.page(for:)) ?? ErrorView.page(for: .notFound)))
        case .hidden(let page):
            return .now(.present(controller.hidden(page: page).map(ModerationView.page(for:)) ?? ErrorView.page(for: .notFound)))
        case .log(let page):
            return .now(.present(controller.log(page: page).map(ModerationView.page(for:)) ?? ErrorView.page(for: .notFound)))
        case .dismiss(let report):
            return .later { [controller] in finish(try await controller.dismiss(report, by: moderator)) }
        case .hide(let quote):
            return .later { [controller] in finish(try await controller.hide(quote, reason: reason, by: moderator)) }
        case .unhide(let quote):
            return .later { [controller] in finish(try await controller.unhide(quote, reason: reason, by: moderator)) }
        case .suspend(let person):
            return .later { [controller] in finish(try await controller.suspend(person, reason: reason, by: moderator), person, moderator) }
        case .unsuspend(let person):
            return .later { [controller] in
                finish(try await controller.unsuspend(person, reason: reason, by: moderator), person, moderator)
            }
        case .revert(let person):
            return .later { [controller] in finish(try await controller.revert(person, reason: reason, by: moderator), person, moderator) }
        }
    }

    /// Back to the person's profile when done, or there again with the reason's problem (422).
    private func finish(_ state: ModerationActionState, _ person: Username, _ moderator: UserID) -> Navigation {
        switch state {
        case .done: .push(ProfilesRoute.show(person))
        case .invalidReason(let problem):
            .present(ProfileView.page(for: profiles.load(person, viewer: moderator, moderation: ProfileModeration(problem: problem))))
        case .notFound, .notAllowed: finish(state)
        }
    }

    /// Back to the queue when done; the queue again with the reason's problem (422), or the 404
    /// and 403 pages.
    private func finish(_ state: ModerationActionState) -> Navigation {
        switch state {
        case .done: .push(ModerationRoute.queue())
        case .invalidReason(let problem):
            .present(controller.queue(problem: problem).map(ModerationView.page(for:)) ?? ErrorView.page(for: .notFound))
        case .notFound: .present(ErrorView.page(for: .notFound))
        case .notAllowed:
            .present(ErrorView.page(for: .forbidden("Only moderators may do this, and never to a moderator.")))
        }
    }
}

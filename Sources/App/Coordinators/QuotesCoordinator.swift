package import HTTPServer
import Store

/// The quote book's flows: home, the list, showing, editing and saving a quote, and choosing a
/// favourite.
///
/// It turns a ``QuotesRoute`` and the request's form into a call on ``QuoteController``, and the
/// returned state into a page through the views; it never decides where a finished flow goes.
package struct QuotesCoordinator: FlowCoordinator {
    private let controller: QuoteController

    package init(controller: QuoteController) {
        self.controller = controller
    }

    package func start(_ route: QuotesRoute, request: HTTPRequest, form: SubmittedForm, visitor: Visitor) async throws -> Navigation {
        switch route {
        case .home:
            return .present(HomeView.page(for: controller.home(viewer: visitor.user?.id)))
        case .list(let page, let search):
            return .present(QuoteListView.page(for: controller.list(page: page, search: search)))
        case .show(let id):
            return .present(QuoteView.page(for: controller.show(id, viewer: visitor.user?.id)))
        case .edit(let id):
            return .present(QuoteEditView.page(for: controller.edit(id)))
        case .update(let id):
            guard let user = visitor.user, let version = form[QuoteFormField.version].flatMap(Int.init) else {
                return .present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again.")))
            }
            let draft = QuoteDraft(text: form[QuoteFormField.text] ?? "", author: form[QuoteFormField.author] ?? "")
            let state = try await controller.save(id, draft: draft, baseVersion: version, by: user.id)
            if case .saved(let quote) = state {
                return .finished(.quoteSaved(quote.id))
            }
            return .present(QuoteEditView.page(for: state))
        case .favourite(let id):
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            switch try await controller.makeFavourite(id, for: user.id) {
            case .chosen(let id): return .finished(.favouriteChosen(id))
            case .notFound: return .present(ErrorView.page(for: .notFound))
            }
        case .new:
            return .present(QuoteEditView.newQuotePage(QuoteDraft(text: "", author: ""), problems: [:]))
        case .create:
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            let draft = QuoteDraft(text: form[QuoteFormField.text] ?? "", author: form[QuoteFormField.author] ?? "")
            switch try await controller.add(draft, by: user.id) {
            case .added(let id): return .finished(.quoteSaved(id))
            case let .composing(draft, problems): return .present(QuoteEditView.newQuotePage(draft, problems: problems))
            }
        case .delete(let id):
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            switch try await controller.delete(id, by: user.id) {
            case .deleted(let id): return .finished(.quoteDeleted(id))
            case .notAllowed:
                return .present(ErrorView.page(for: .forbidden("Only the person who added a quote may delete it.")))
            case .notFound: return .present(ErrorView.page(for: .notFound))
            }
        case .history(let id):
            return .present(QuoteHistoryView.page(for: try await controller.history(of: id, viewer: visitor.user?.id)))
        case .restore(let id):
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            guard let version = form[QuoteFormField.version].flatMap(Int.init) else {
                return .present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again.")))
            }
            switch try await controller.restore(id, version: version, by: user.id) {
            case .restored(let id, _), .alreadyCurrent(let id): return .finished(.quoteSaved(id))
            case .notFound: return .present(ErrorView.page(for: .notFound))
            }
        case .events:
            // Being built (issue 9): until then this path answers as unknown.
            return .present(ErrorView.page(for: .notFound))
        }
    }
}

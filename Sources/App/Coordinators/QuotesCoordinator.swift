package import HTTPServer
import Store

/// The quote book's flows: home, showing, editing and saving a quote.
///
/// It turns a ``QuotesRoute`` and the request's form into a call on ``QuoteController``, and the
/// returned state into a page through the views; it never decides where a finished flow goes.
package struct QuotesCoordinator: Sendable {
    private let controller: QuoteController

    package init(controller: QuoteController) {
        self.controller = controller
    }

    package func start(_ route: QuotesRoute, request: HTTPRequest) async throws -> Navigation {
        switch route {
        case .home:
            return .present(HomeView.page(for: controller.home()))
        case .show(let id):
            return .present(QuoteView.page(for: controller.show(id)))
        case .edit(let id):
            return .present(QuoteEditView.page(for: controller.edit(id)))
        case .update(let id):
            guard let form = try? URLEncodedForm(request.body),
                let version = form["version"].flatMap(Int.init)
            else {
                return .present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again.")))
            }
            let draft = QuoteDraft(text: form["text"] ?? "", author: form["author"] ?? "")
            let state = try await controller.save(id, draft: draft, baseVersion: version)
            if case .saved(let quote) = state {
                return .finished(.quoteSaved(quote.id))
            }
            return .present(QuoteEditView.page(for: state))
        }
    }
}

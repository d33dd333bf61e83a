package import HTTPServer
import Store

/// The quote book's flows: home, the list, showing, editing and saving a quote, choosing a
/// favourite, and a quote's live event stream.
///
/// It turns a ``QuotesRoute`` and the request's form into a call on ``QuoteController``, and the
/// returned state into a page through the views; it never decides where a finished flow goes.
package struct QuotesCoordinator: FlowCoordinator {
    private let controller: QuoteController
    private let feed: QuoteFeed

    package init(controller: QuoteController, feed: QuoteFeed) {
        self.controller = controller
        self.feed = feed
    }

    /// The pages that need nothing asynchronous and little time (they read the store's current
    /// state), or nil for the flows that must wait for the store (saving, deleting, history from
    /// the journal) and for a search of a large book that nothing kept. The root calls this on the
    /// event loop for GETs it can answer at once.
    package func startImmediately(_ route: QuotesRoute, visitor: Visitor) -> Navigation? {
        switch route {
        case .home:
            return .present(HomeView.page(for: controller.home(viewer: visitor.user?.id)))
        case .list(let page, let search):
            return controller.listImmediately(page: page, search: search).map { .present(QuoteListView.page(for: $0)) }
        case .show(let id):
            return .present(QuoteView.page(for: controller.show(id, viewer: visitor.user?.id)))
        case .edit(let id):
            return .present(QuoteEditView.page(for: controller.edit(id)))
        case .new:
            return .present(QuoteEditView.newQuotePage(QuoteDraft(text: "", author: ""), problems: [:]))
        case .update, .favourite, .create, .delete, .history, .restore, .events:
            return nil
        }
    }

    package func start(_ route: QuotesRoute, request: HTTPRequest, form: SubmittedForm, visitor: Visitor) async throws -> Navigation {
        if let navigation = startImmediately(route, visitor: visitor) { return navigation }
        switch route {
        case .home, .show, .edit, .new:
            preconditionFailure("\(route) is answered by startImmediately")
        case .list(let page, let search):
            // A byte search of a large book: milliseconds on the cooperative pool, never on an
            // event loop, which the request's task prefers with ResponderExecution.eventLoop
            // (SE-0417: a task executor preference holds until an explicit one replaces it).
            let state = await withTaskExecutorPreference(globalConcurrentExecutor) {
                controller.list(page: page, search: search)
            }
            return .present(QuoteListView.page(for: state))
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
        case .history(let id, let page):
            return .present(QuoteHistoryView.page(for: try await controller.history(of: id, page: page, viewer: visitor.user?.id)))
        case .restore(let id):
            guard let user = visitor.user else { return .present(ErrorView.page(for: .notFound)) }
            guard let version = form[QuoteFormField.version].flatMap(Int.init) else {
                return .present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again.")))
            }
            switch try await controller.restore(id, version: version, by: user.id) {
            case .restored(let id, _), .alreadyCurrent(let id): return .finished(.quoteSaved(id))
            case .notFound: return .present(ErrorView.page(for: .notFound))
            }
        case .events(let id):
            guard feed.contains(id) else { return .present(ErrorView.page(for: .notFound)) }
            // A reconnecting browser names the last version it was sent (the parser has trimmed the value).
            let lastSeen = request.headers["Last-Event-ID"].flatMap { Int($0) }
            return .respond(QuoteEventView.response { [feed] in feed.listen(to: id, lastSeenVersion: lastSeen) })
        }
    }
}

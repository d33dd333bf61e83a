package import Basics
import HTTPServer
import Store

/// The quote book's flows: home, the list, showing, editing and saving a quote, choosing a
/// favourite, and a quote's live event stream.
///
/// It turns a ``QuotesRoute`` and the request's form into a call on ``QuoteController``, and the
/// returned state into a page through the views; it never decides where a finished flow goes.
package struct QuotesCoordinator: FlowCoordinator {
    private let controller: QuoteController
    private let feed: QuoteFeed
    /// Reports, which a quote's page sends to the moderators.
    private let moderation: ModerationController

    package init(controller: QuoteController, feed: QuoteFeed, moderation: ModerationController) {
        self.controller = controller
        self.feed = feed
        self.moderation = moderation
    }

    /// Pages that read the store's current state answer at once; saving, deleting, history from
    /// the journal, and a search of a large book that nothing kept, wait.
    package func start(_ route: QuotesRoute, _ context: RequestContext) -> Step<Navigation> {
        let visitor = context.visitor
        let form = context.form
        switch route {
        case .home:
            return .now(.present(HomeView.page(for: controller.home(viewer: visitor.user?.id))))
        case .list(let page, let search):
            if let state = controller.listImmediately(page: page, search: search) { return .now(.present(QuoteListView.page(for: state))) }
            return .later { [controller] in
                // A byte search of a large book: milliseconds on the cooperative pool, never on an
                // event loop, which the request's task prefers with ResponderExecution.eventLoop
                // (SE-0417: a task executor preference holds until an explicit one replaces it).
                let state = await withTaskExecutorPreference(globalConcurrentExecutor) {
                    controller.list(page: page, search: search)
                }
                return .present(QuoteListView.page(for: state))
            }
        case .show(let id):
            let state = controller.show(id, viewer: visitor.user?.id)
            if context.notice == .reported(id), visitor.isSignedIn { return .now(.present(QuoteView.page(for: state, after: .reported))) }
            return .now(.present(QuoteView.page(for: state)))
        case .report(let id):
            guard let user = visitor.user?.id else { return .now(.present(ErrorView.page(for: .notFound))) }
            let reason = form[ModerationField.reason] ?? ""
            return .later { [controller, moderation] in
                let outcome = try await moderation.report(id, reason: reason, by: user)
                if outcome == .reported { return .finished(.quoteReported(id)) }
                return .present(QuoteView.page(for: controller.show(id, viewer: user), after: outcome))
            }
        case .edit(let id):
            return .now(.present(QuoteEditView.page(for: controller.edit(id))))
        case .new:
            return .now(.present(QuoteEditView.newQuotePage(QuoteDraft(text: "", author: ""), problems: [:])))
        case .update(let id):
            guard let user = visitor.user, let version = form[QuoteFormField.version].flatMap(Int.init) else {
                return .now(.present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again."))))
            }
            let draft = QuoteDraft(text: form[QuoteFormField.text] ?? "", author: form[QuoteFormField.author] ?? "")
            return .later { [controller] in
                let state = try await controller.save(id, draft: draft, baseVersion: version, by: user.id)
                if case .saved(let quote) = state { return .finished(.quoteSaved(quote.id)) }
                return .present(QuoteEditView.page(for: state))
            }
        case .favourite(let id):
            guard let user = visitor.user else { return .now(.present(ErrorView.page(for: .notFound))) }
            return .later { [controller] in
                switch try await controller.makeFavourite(id, for: user.id) {
                case .chosen(let id): .finished(.favouriteChosen(id))
                case .notFound: .present(ErrorView.page(for: .notFound))
                }
            }
        case .create:
            guard let user = visitor.user else { return .now(.present(ErrorView.page(for: .notFound))) }
            let draft = QuoteDraft(text: form[QuoteFormField.text] ?? "", author: form[QuoteFormField.author] ?? "")
            return .later { [controller] in
                switch try await controller.add(draft, by: user.id) {
                case .added(let id): .finished(.quoteSaved(id))
                case let .composing(draft, problems): .present(QuoteEditView.newQuotePage(draft, problems: problems))
                }
            }
        case .delete(let id):
            guard let user = visitor.user else { return .now(.present(ErrorView.page(for: .notFound))) }
            return .later { [controller] in
                switch try await controller.delete(id, by: user.id) {
                case .deleted(let id): .finished(.quoteDeleted(id))
                case .notAllowed: .present(ErrorView.page(for: .forbidden("Only the person who added a quote may delete it.")))
                case .notFound: .present(ErrorView.page(for: .notFound))
                }
            }
        case .history(let id, let page):
            return controller.history(of: id, page: page, viewer: visitor.user?.id).then { .now(.present(QuoteHistoryView.page(for: $0))) }
        case .restore(let id):
            guard let user = visitor.user else { return .now(.present(ErrorView.page(for: .notFound))) }
            guard let version = form[QuoteFormField.version].flatMap(Int.init) else {
                return .now(.present(ErrorView.page(for: .badRequest("The form arrived incomplete. Please go back and try again."))))
            }
            return .later { [controller] in
                switch try await controller.restore(id, version: version, by: user.id) {
                case .restored(let id, _), .alreadyCurrent(let id): .finished(.quoteSaved(id))
                case .notFound: .present(ErrorView.page(for: .notFound))
                }
            }
        case .events(let id):
            guard feed.contains(id) else { return .now(.present(ErrorView.page(for: .notFound))) }
            // A reconnecting browser names the last version it was sent (the parser has trimmed the value).
            let lastSeen = context.request.headers["Last-Event-ID"].flatMap { Int($0) }
            return .now(.respond(QuoteEventView.response { [feed] in feed.listen(to: id, lastSeenVersion: lastSeen) }))
        }
    }
}

import Basics
import HTTPServer

/// Pages of visitors who are nobody (no session or pre-session cookie at all) are kept
/// finished, by target, for one store revision, and sent again without routing, reading the
/// state or rendering (``PageCache``); a hit answers `If-None-Match` with a 304 as a render
/// would. Not in `--dev` (no cache), where templates change under the pages.
final class PageCacheMiddleware: RequestMiddleware, AnswerAmending {
    /// Signed-out visitors' pages, by target, for the store's current revision; nil in `--dev`.
    let pageCache: PageCache?
    let cookies: AppCookies

    init(pageCache: PageCache?, cookies: AppCookies) {
        self.pageCache = pageCache
        self.cookies = cookies
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let pageCache, context.request.method == .get || context.request.method == .head, isAnonymous(context) else {
            return next.handle(context)
        }
        if let entry = pageCache.entry(for: context.request.target, revision: context.revision) {
            context.routeLabel = entry.routeLabel
            let revalidated = context.request.ifNoneMatch(includes: entry.tag, starMatches: false)
            return .now(revalidated ? PageTagMiddleware.notModified(entry.tag) : entry.response)
        }
        return next.handle(context).amended(by: self, for: context)
    }

    /// Keeps a finished page of a visitor who is nobody: a 200 with a tag, no cookie set, no
    /// account and no CSRF token, so it is what every cookie-less request for its target gets.
    func amend(_ response: consuming HTTPResponse, for context: RequestContext) -> HTTPResponse {
        guard let pageCache, case .state(let tag) = context.pageTagging, response.status == .ok, context.setCookies.isEmpty,
            context.visitor.user == nil, context.visitor.csrfToken == nil
        else { return response }
        pageCache.store(
            PageCache.Entry(response: copy response, tag: tag, routeLabel: context.routeLabel), for: context.request.target,
            revision: context.revision)
        return response
    }

    /// Whether the request carries neither a session nor a pre-session cookie: its visitor is
    /// nobody, and its page is the one every such request for the same target gets.
    private func isAnonymous(_ context: RequestContext) -> Bool {
        !cookies.has(.session, in: context.cookies) && !cookies.has(.preSession, in: context.cookies)
    }
}

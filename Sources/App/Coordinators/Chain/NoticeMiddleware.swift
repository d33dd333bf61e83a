import Basics
import HTTPServer

/// The sentence a redirect left for the page it leads to (``PageNotice``): read from its cookie
/// into the request's context by a GET of that page, and the cookie deleted, so the page shows
/// it once; any other request leaves it for the page (a cookie that does not parse is deleted).
/// A request without the cookie (nearly all) costs one look-up among the cookies parsed already.
final class NoticeMiddleware: RequestMiddleware {
    let cookies: AppCookies

    init(cookies: AppCookies) {
        self.cookies = cookies
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard let value = cookies.value(.notice, in: context.cookies) else { return next.handle(context) }
        guard let notice = PageNotice(cookieValue: value) else {
            context.setCookies.append(cookies.deleting(.notice))
            return next.handle(context)
        }
        if context.request.method == .get, let route = context.route, notice.isShown(on: route) {
            context.notice = notice
            context.setCookies.append(cookies.deleting(.notice))
        }
        return next.handle(context)
    }
}

import Basics
import HTTPServer

/// The sentence a redirect left for the page it leads to (``PageNotice``): read from its cookie
/// into the request's context, and the cookie deleted, so the page shows it once. A request
/// without the cookie (nearly all) costs one look-up among the cookies parsed already.
final class NoticeMiddleware: RequestMiddleware {
    let cookies: AppCookies

    init(cookies: AppCookies) {
        self.cookies = cookies
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        if let value = cookies.value(.notice, in: context.cookies) {
            context.notice = PageNotice(cookieValue: value)
            context.setCookies.append(cookies.deleting(.notice))
        }
        return next.handle(context)
    }
}

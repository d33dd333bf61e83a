package import HTTPServer
package import Templates

/// A view's answer: which template to render, with what context, under which status.
///
/// The context is the view's own struct, which writes itself out as an explicit
/// ``TemplateValue`` (no `Codable` or reflection on the request path); the renderer wraps it for
/// the layout.
package struct Page: Sendable {
    package var template: PageTemplate
    package var status: HTTPStatus
    /// Extra response headers the page's status requires (`Allow` on a 405).
    package var headers: HTTPHeaders
    /// The view's context, made when the page is rendered whole: a page whose ``sharedKey``
    /// finds its rendered skeleton never makes it.
    package var context: any TemplateValueConvertible & Sendable { makeContext() }
    private let makeContext: @Sendable () -> any TemplateValueConvertible & Sendable
    /// Everything `context` shows, for pages whose body is the same for every visitor but for
    /// the visitor's own values: the renderer then renders it once per key and splices those in
    /// (``PageSkeletons``). Nil: rendered whole every time. A key must change whenever anything
    /// the page shows could, or a visitor is shown a stale page.
    package var sharedKey: PageContentKey?

    package init(
        template: PageTemplate, status: HTTPStatus = .ok, headers: HTTPHeaders = [:],
        context: @autoclosure @escaping @Sendable () -> any TemplateValueConvertible & Sendable, sharedKey: PageContentKey? = nil
    ) {
        self.template = template
        self.status = status
        self.headers = headers
        makeContext = context
        self.sharedKey = sharedKey
    }
}

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
    package var context: any TemplateValueConvertible & Sendable

    package init(template: PageTemplate, status: HTTPStatus = .ok, headers: HTTPHeaders = [:], context: any TemplateValueConvertible & Sendable) {
        self.template = template
        self.status = status
        self.headers = headers
        self.context = context
    }
}

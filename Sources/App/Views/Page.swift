package import HTTPServer

/// A view's answer: which template to render, with what context, under which status.
///
/// The context is the view's own `Encodable` struct; the renderer wraps it for the layout.
package struct Page: Sendable {
    package var template: PageTemplate
    package var status: HTTPStatus
    /// Extra response headers the page's status requires (`Allow` on a 405).
    package var headers: HTTPHeaders
    package var context: any Encodable & Sendable

    package init(template: PageTemplate, status: HTTPStatus = .ok, headers: HTTPHeaders = [:], context: any Encodable & Sendable) {
        self.template = template
        self.status = status
        self.headers = headers
        self.context = context
    }
}

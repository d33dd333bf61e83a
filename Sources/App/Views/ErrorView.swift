package import HTTPServer
import Templates

/// Renders the error pages, all HTML in the layout.
package enum ErrorView {
    /// The errors a page can show.
    package enum Failure: Sendable, Equatable {
        case badRequest(String)
        case notFound
        case methodNotAllowed([HTTPMethod])
        /// A fault on our side; `details` reach the page only in development.
        case serverFault(details: String)
    }

    struct Context: Sendable, TemplateValueConvertible {
        let status: Int
        let heading: String
        let message: String
        let details: String?

        var templateValue: TemplateValue {
            .object([
                "status": .int(status), "heading": .string(heading), "message": .string(message),
                "details": details.map(TemplateValue.string) ?? .null, "homeURL": .string(QuotesRoute.home.path),
            ])
        }
    }

    package static func page(for failure: Failure) -> Page {
        switch failure {
        case .badRequest(let message):
            page(.badRequest, "That request could not be understood", message)
        case .notFound:
            page(.notFound, "Page not found", "There is nothing at this address. The quote may never have existed.")
        case .methodNotAllowed(let allowed):
            page(
                .methodNotAllowed, "Not allowed here", "This address does not accept that kind of request.",
                headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]
            )
        case .serverFault(let details):
            page(
                .internalServerError, "Something went wrong",
                "That is our fault, not yours. Please try again in a moment.", details: details
            )
        }
    }

    private static func page(
        _ status: HTTPStatus, _ heading: String, _ message: String, headers: HTTPHeaders = [:], details: String? = nil
    ) -> Page {
        Page(
            template: .error, status: status, headers: headers,
            context: Context(status: status.code, heading: heading, message: message, details: details)
        )
    }
}

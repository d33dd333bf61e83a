package import HTTPServer
import Templates

/// Renders the error pages, all HTML in the layout.
package enum ErrorView {
    /// The errors a page can show.
    package enum Failure: Sendable, Equatable {
        case badRequest(String)
        case notFound
        /// Not found, with a message saying what to do instead.
        case notFoundMessage(String)
        case methodNotAllowed([HTTPMethod])
        /// Refused: a form without the right CSRF token, or something not theirs to change.
        case forbidden(String)
        /// The request's body was over `limit` bytes, so it was not read and nothing changed.
        case contentTooLarge(limit: Int)
        /// Too busy to do it now (the password-hashing queue is full); try again shortly.
        case busy
        /// The person or their network made more changes lately than ``WriteLimits`` allows; the
        /// next could count in `retryAfter` seconds. `typed`: what the refused form carried,
        /// shown back so nothing the person wrote is lost.
        case tooManyWrites(retryAfter: Int, typed: UnsavedText = UnsavedText())
        /// The database cannot be reached just now (restarting, connection lost); try again in
        /// a second. `details` reach the page only in development.
        case databaseUnavailable(details: String)
        /// A fault on our side; `details` reach the page only in development.
        case serverFault(details: String)
    }

    /// What a person typed into a form that was refused before anything was saved: the page
    /// shows it back, to copy and send again later.
    package struct UnsavedText: Sendable, Equatable {
        package var quoteText: String?
        package var author: String?
        package var displayName: String?

        package init(quoteText: String? = nil, author: String? = nil, displayName: String? = nil) {
            self.quoteText = quoteText
            self.author = author
            self.displayName = displayName
        }

        /// Each non-blank text with its label, in the form's order; a text of one line gets a
        /// box of one line.
        var shown: [TemplateValue] {
            let labelled: [(id: String, label: String, text: String?)] = [
                ("typed-text", "Quote", quoteText), ("typed-author", "Author", author), ("typed-display-name", "Display name", displayName),
            ]
            return labelled.compactMap { id, label, text in
                guard let text, text.contains(where: { !$0.isWhitespace }) else { return nil }
                let lines = text.reduce(into: 1) { count, character in if character.isNewline { count += 1 } }
                let rows = min(max(lines, text.count > 60 ? 4 : 1), 12)
                let values: [String: TemplateValue] = ["id": .string(id), "label": .string(label), "text": .string(text), "rows": .int(rows)]
                return .object(values)
            }
        }
    }

    struct Context: Sendable, TemplateValueConvertible {
        let status: Int
        let heading: String
        let message: String
        let details: String?
        var typed = UnsavedText()

        var templateValue: TemplateValue {
            let shown = typed.shown
            let values: [String: TemplateValue] = [
                "status": .int(status), "heading": .string(heading), "message": .string(message),
                "details": details.map(TemplateValue.string) ?? .null, "homeURL": .string(QuotesRoute.home.path),
                "hasTyped": .bool(!shown.isEmpty), "typed": .list(shown),
            ]
            return .object(values)
        }
    }

    /// The 403 message for a form whose CSRF token is missing or wrong: usually a form left open
    /// across signing out or in, so the advice is to reload it.
    package static let expiredFormMessage =
        "This form has expired or did not come from Quotebook, so nothing was changed. Please reload the page and try again."

    package static func page(for failure: Failure) -> Page {
        switch failure {
        case .badRequest(let message):
            page(.badRequest, "That request could not be understood", message)
        case .notFound:
            page(.notFound, "Page not found", "There is nothing at this address. The quote may never have existed.")
        case .notFoundMessage(let message):
            page(.notFound, "Page not found", message)
        case .methodNotAllowed(let allowed):
            page(
                .methodNotAllowed, "Not allowed here", "This address does not accept that kind of request.",
                headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]
            )
        case .forbidden(let message):
            page(.forbidden, "Not allowed", message)
        case .contentTooLarge(let limit):
            page(
                .contentTooLarge, "Too much to send",
                "That was more than the \(Self.size(limit)) this form takes, so nothing was changed. Please go back and send less."
            )
        case .busy:
            page(
                .serviceUnavailable, "Too busy right now", "Please try again in a few seconds.",
                headers: ["Retry-After": "5"]
            )
        case .tooManyWrites(let seconds, let typed):
            page(
                .tooManyRequests, "Too many changes",
                "So many changes have come from your account or your network lately that nothing was changed this time. "
                    + "Please try again in \(WaitText.phrase(seconds: seconds)).",
                headers: ["Retry-After": String(seconds)], typed: typed
            )
        case .databaseUnavailable(let details):
            page(
                .serviceUnavailable, "Temporarily unavailable",
                "Quotebook cannot reach its database for a moment, so nothing was changed. Please try again in a second.",
                headers: ["Retry-After": "1"], details: details
            )
        case .serverFault(let details):
            page(
                .internalServerError, "Something went wrong",
                "That is our fault, not yours. Please try again in a moment.", details: details
            )
        }
    }

    /// `bytes` as a person reads a size: whole MiB, else KiB.
    private static func size(_ bytes: Int) -> String {
        bytes >= 1_048_576 ? "\(bytes / 1_048_576) MiB" : "\(max(1, bytes / 1024)) KiB"
    }

    private static func page(
        _ status: HTTPStatus, _ heading: String, _ message: String, headers: HTTPHeaders = [:], details: String? = nil,
        typed: UnsavedText = UnsavedText()
    ) -> Page {
        Page(
            template: .error, status: status, headers: headers,
            context: Context(status: status.code, heading: heading, message: message, details: details, typed: typed)
        )
    }
}

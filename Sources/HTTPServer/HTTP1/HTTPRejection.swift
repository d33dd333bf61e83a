/// Why a request cannot be served, decided by the parser before the responder sees anything:
/// the status to answer and a short reason for the text body and the log.
///
/// Every rejection closes the connection afterwards (RFC 9112 §9.6): after a framing error
/// the server cannot know where the next request would start.
package struct HTTPRejection: Sendable, Equatable, CustomStringConvertible {
    /// The status to answer with.
    package var status: HTTPStatus
    /// A short, client-safe explanation (it goes into the text body and the log).
    package var reason: String

    /// A rejection answered with `status`, explained by `reason`.
    package init(_ status: HTTPStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// 400: the message does not follow RFC 9112's grammar or framing rules.
    package static func badRequest(_ reason: String) -> HTTPRejection { HTTPRejection(.badRequest, reason) }

    /// `code reason`, for logs.
    package var description: String { "\(status.code) \(reason)" }
}

/// A response status code with its reason phrase (RFC 9110 §15).
package struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    package let code: Int
    package let reason: String

    package init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    package static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    package static let ok = HTTPStatus(code: 200, reason: "OK")
    package static let created = HTTPStatus(code: 201, reason: "Created")
    package static let noContent = HTTPStatus(code: 204, reason: "No Content")
    package static let movedPermanently = HTTPStatus(code: 301, reason: "Moved Permanently")
    package static let found = HTTPStatus(code: 302, reason: "Found")
    package static let seeOther = HTTPStatus(code: 303, reason: "See Other")
    package static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    package static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    package static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    package static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    package static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    package static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    package static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    package static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    package static let gone = HTTPStatus(code: 410, reason: "Gone")
    package static let lengthRequired = HTTPStatus(code: 411, reason: "Length Required")
    package static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    package static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    package static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    package static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    package static let unprocessableContent = HTTPStatus(code: 422, reason: "Unprocessable Content")
    package static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    package static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    package static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    package static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    package static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    package var description: String { "\(code) \(reason)" }
}

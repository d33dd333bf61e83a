/// A response the responder returns; the connection adds `Date`, `Content-Length` and
/// `Connection` when it writes it.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// When set, the body is produced over time by this stream (server-sent events) and sent
    /// with chunked transfer coding (RFC 9112 §7.1), or until close to an HTTP/1.0 client;
    /// ``body`` is then ignored.
    package var stream: HTTPBodyStream?

    package init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body `stream` produces while the connection stays open.
    package init(status: HTTPStatus, headers: HTTPHeaders = [:], stream: HTTPBodyStream) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }

    /// A `text/plain; charset=utf-8` response.
    package static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// The server's own short answer to a request it refused: `code reason: why` as text, with
    /// `Retry-After` on a 503.
    package static func rejection(_ rejection: HTTPRejection) -> HTTPResponse {
        var response = text("\(rejection.status.code) \(rejection.status.reason): \(rejection.reason)\n", status: rejection.status)
        if rejection.status == .serviceUnavailable { response.headers.add(name: "Retry-After", value: "1") }
        return response
    }

    /// A 303 See Other to `location` (Post/Redirect/Get).
    package static func seeOther(_ location: String) -> HTTPResponse {
        HTTPResponse(status: .seeOther, headers: ["Location": location])
    }
}

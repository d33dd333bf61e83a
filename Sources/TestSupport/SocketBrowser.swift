import Foundation
import HTTPServer

/// A browser over real sockets for tests that run the server as a process: one connection per
/// request, cookies kept from `Set-Cookie`, and the CSRF token of a form read from its page.
package struct SocketBrowser: Sendable {
    package let port: Int
    package private(set) var cookies = CookieJar()
    /// Sent with every request besides the usual ones (an `X-Forwarded-For`, say).
    package var extraHeaders: [(String, String)] = []

    /// A browser on `port`, holding `cookies` (another process's session, say) from the start.
    package init(port: Int, cookies: CookieJar = CookieJar()) {
        self.port = port
        self.cookies = cookies
    }

    package mutating func get(_ target: String) async throws -> ClientResponse {
        try await send("GET", target, headers: [], body: [])
    }

    /// POSTs `fields` (urlencoded) plus the `csrf_token` of the page at `formPage`.
    package mutating func submit(_ target: String, _ fields: [(String, String)], formPage: String) async throws -> ClientResponse {
        let token = try await csrfToken(from: formPage)
        return try await send("POST", target, headers: Self.formHeaders, body: Self.formBody(fields, token: token))
    }

    /// The bytes of the POST ``submit(_:_:formPage:)`` would send, with this browser's cookies
    /// as they are now, for a test to send many times at once (each on a ``SocketClient`` of its own).
    package mutating func preparedSubmit(_ target: String, _ fields: [(String, String)], formPage: String) async throws -> [UInt8] {
        let token = try await csrfToken(from: formPage)  // first: it stores the form page's cookies
        return preparedPost(target, fields, token: token)
    }

    /// The bytes of a POST of `fields` plus `token` as `csrf_token`, with this browser's cookies
    /// and ``extraHeaders`` as they are now.
    package func preparedPost(_ target: String, _ fields: [(String, String)], token: String) -> [UInt8] {
        request("POST", target, headers: Self.formHeaders, body: Self.formBody(fields, token: token))
    }

    /// POSTs a `multipart/form-data` body holding the `csrf_token` of the page at `formPage` and
    /// `file` in `field`, all at once as a browser does (no `Expect: 100-continue`).
    package mutating func upload(
        _ target: String, field: String, filename: String, fileType: String, file: [UInt8], formPage: String
    ) async throws -> ClientResponse {
        let token = try await csrfToken(from: formPage)
        let body = MultipartBody(token: token, field: field, filename: filename, fileType: fileType, file: file)
        return try await send("POST", target, headers: [("Content-Type", MultipartBody.contentType)], body: body.bytes)
    }

    /// The bytes of the `multipart/form-data` POST ``upload(_:field:filename:fileType:file:formPage:)``
    /// would send, of a JPEG named `upload.jpg`, with `token`
    /// and this browser's cookies as they are now, for a test to send many at once.
    package func preparedUpload(_ target: String, field: String, file: [UInt8], token: String) -> [UInt8] {
        let body = MultipartBody(token: token, field: field, filename: "upload.jpg", fileType: "image/jpeg", file: file)
        return request("POST", target, headers: [("Content-Type", MultipartBody.contentType)], body: body.bytes)
    }

    /// The `csrf_token` value in the page at `target` (fetched, keeping its cookies).
    package mutating func csrfToken(from target: String) async throws -> String {
        let page = try await get(target).text
        guard let range = page.range(of: "name=\"csrf_token\" value=\"") else {
            throw SocketClient.Failure(description: "no csrf_token on \(target)")
        }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    package static let formHeaders = [("Content-Type", "application/x-www-form-urlencoded")]

    package static func formBody(_ fields: [(String, String)], token: String) -> [UInt8] {
        Array(URLEncodedForm.encode(pairs: (fields + [("csrf_token", token)]).map { (name: $0.0, value: $0.1) }).utf8)
    }

    /// Signs up `username` with `password` and stays signed in.
    package mutating func signUp(_ username: String, password: String = "correct horse battery") async throws -> ClientResponse {
        try await submit(
            "/signup",
            [("username", username), ("display_name", username), ("password", password), ("password_confirmation", password)],
            formPage: "/signup")
    }

    package mutating func send(
        _ method: String, _ target: String, headers: [(String, String)], body: [UInt8]
    ) async throws -> ClientResponse {
        let response = try await SocketClient.exchangeOnce(port: port, request(method, target, headers: headers, body: body))
        keepCookies(of: response)
        return response
    }

    /// Keeps the cookies `response` sets, as if this browser had received it (for a request
    /// sent from ``preparedPost(_:_:token:)``'s bytes).
    package mutating func keepCookies(of response: ClientResponse) {
        for (name, value) in response.headers where name.lowercased() == "set-cookie" { cookies.store(setCookie: value) }
    }

    /// A request's bytes, with `Connection: close`, the cookies and ``extraHeaders``.
    private func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        if !cookies.isEmpty { head += "Cookie: \(cookies.header)\r\n" }
        for (name, value) in extraHeaders + headers { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}

import Foundation
import HTTPServer

/// A browser over real sockets for tests that run the server as a process: one connection per
/// request, cookies kept from `Set-Cookie`, and the CSRF token of a form read from its page.
package struct SocketBrowser: Sendable {
    package let port: Int
    package private(set) var cookies = CookieJar()

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
        let page = try await get(formPage).text
        guard let range = page.range(of: "name=\"csrf_token\" value=\"") else {
            throw SocketClient.Failure(description: "no csrf_token on \(formPage)")
        }
        let token = String(page[range.upperBound...].prefix { $0 != "\"" })
        let body = URLEncodedForm.encode(pairs: (fields + [("csrf_token", token)]).map { (name: $0.0, value: $0.1) })
        return try await send(
            "POST", target, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
    }

    /// Signs up `username` with `password` and stays signed in.
    package mutating func signUp(_ username: String, password: String = "correct horse battery") async throws -> ClientResponse {
        try await submit(
            "/signup",
            [("username", username), ("display_name", username), ("password", password), ("password_confirmation", password)],
            formPage: "/signup")
    }

    private mutating func send(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]) async throws -> ClientResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        if !cookies.isEmpty { head += "Cookie: \(cookies.header)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let client = try SocketClient(port: port)
        try await client.send(Array((head + "\r\n").utf8) + body)
        let response = try await client.readResponse()
        client.close()
        for (name, value) in response.headers where name.lowercased() == "set-cookie" { cookies.store(setCookie: value) }
        return response
    }
}

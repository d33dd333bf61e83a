import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// A POST whose cookies cannot carry a valid CSRF binding — no session cookie and no
/// pre-session cookie — is answered from its head: the 403 (or the route's 404/405) that the
/// whole request would get, without its body being read or its memory reserved.
@Suite struct BodyNotReadTests {
    static func head(_ target: String, cookie: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = ["Host": "test", "Content-Type": "application/x-www-form-urlencoded"]
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        return HTTPRequest(method: .post, target: target, headers: headers)
    }

    @Test(arguments: ["/login", "/signup", "/logout", "/quotes", "/quotes/1", "/quotes/1/delete", "/profile/name", "/profile/photo"])
    func aPostWithoutSessionOrPreSessionCookieIs403FromItsHead(path: String) async throws {
        let app = try await TestApp()
        let early = try #require(app.coordinator.respondBeforeBody(to: Self.head(path)))
        #expect(early.status == .forbidden)
        #expect(early.headers["Content-Type"]?.hasPrefix("text/html") == true)
        // The whole request, body and all, gets the same answer.
        let whole = await app.post(path, form: ["csrf_token": "guess", "username": "ada", "password": "x"])
        #expect(whole.status == early.status)
        #expect(whole.body == early.body)
        #expect(app.store.state.quotes.count == 1)
    }

    @Test func aPostThatMayCarryABindingIsLeftToTheWholeRequest() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        _ = await browser.get("/login")  // sets the pre-session cookie
        #expect(app.coordinator.respondBeforeBody(to: Self.head("/login", cookie: browser.cookieHeader)) == nil)
        // A session cookie, even one that no longer works, needs the store to tell.
        #expect(app.coordinator.respondBeforeBody(to: Self.head("/login", cookie: "quotebook_session=stale")) == nil)
        #expect(app.coordinator.respondBeforeBody(to: HTTPRequest(method: .get, target: "/login")) == nil)
    }

    @Test func withSecureCookiesOnlyTheHostPrefixedNamesCount() async throws {
        let app = try await TestApp(secureCookies: true)
        // A plain-named cookie could come from anywhere: it binds nothing, so 403 from the head.
        let plain = app.coordinator.respondBeforeBody(to: Self.head("/login", cookie: "quotebook_session=x"))
        #expect(plain?.status == .forbidden)
        #expect(app.coordinator.respondBeforeBody(to: Self.head("/login", cookie: "__Host-quotebook_session=x")) == nil)
    }

    @Test func routingStillComesFirst() async throws {
        let app = try await TestApp()
        // No route: its 404 from the head, the page the whole request gets.
        let nowhere = try #require(app.coordinator.respondBeforeBody(to: Self.head("/nowhere")))
        #expect(nowhere.status == .notFound)
        #expect(nowhere.body == (await app.coordinator.respond(to: Self.head("/nowhere"))).body)
        // A GET-only path: 405 with Allow, as the whole request gets.
        let early = try #require(app.coordinator.respondBeforeBody(to: Self.head("/quotes/new")))
        #expect(early.status == .methodNotAllowed)
        #expect(early.headers["Allow"] != nil)
    }

    @Test func overASocketTheAnswerComesWithoutTheBody() async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        // 900 KB announced and never sent: a server that read bodies first would wait for it.
        try await client.send(
            "POST /login HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 900000\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 403)
        #expect(response.header("Connection") == "close")
        #expect(String(decoding: response.body, as: UTF8.self).contains("<!doctype html>"))
        await live.stop()
    }
}

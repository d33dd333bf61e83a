import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// The root's synchronous path (`respondImmediately`, run on the event loop): the same response
/// as the async path, byte for byte, or nil whenever the answer needs to wait.
@Suite struct ImmediateResponseTests {
    /// The pages of the quote book a GET or HEAD can get at once (signed-out redirects included).
    static let targets = [
        "/", "/quotes", "/quotes?page=2", "/quotes?page=0", "/quotes?q=infinite", "/quotes/1", "/quotes/999",
        "/quotes/1/edit", "/quotes/new", "/%ZZ",
    ]

    func request(_ method: HTTPMethod, _ target: String, cookies: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: method, target: target, headers: ["Host": "test"])
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    func expectSame(_ request: HTTPRequest, on app: TestApp, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let immediate = try #require(app.coordinator.immediateResponse(to: request), sourceLocation: sourceLocation)
        let usual = await app.coordinator.respond(to: request)
        #expect(immediate.status == usual.status, sourceLocation: sourceLocation)
        #expect(immediate.headers == usual.headers, sourceLocation: sourceLocation)
        #expect(immediate.body == usual.body, sourceLocation: sourceLocation)
    }

    @Test(arguments: targets) func signedOutPagesAreTheSameAsTheAsyncPath(target: String) async throws {
        let app = try await TestApp()
        try await expectSame(request(.get, target, cookies: ""), on: app)
        try await expectSame(request(.head, target, cookies: ""), on: app)
    }

    @Test(arguments: targets) func signedInPagesAreTheSameAsTheAsyncPath(target: String) async throws {
        let app = try await TestApp()
        let browser = try await app.signedIn("ada")
        try await expectSame(request(.get, target, cookies: browser.cookieHeader), on: app)
    }

    @Test func aRevalidationIsThe304OfTheAsyncPath() async throws {
        let app = try await TestApp()
        let browser = try await app.signedIn("ada")
        let tag = try #require(await app.coordinator.respond(to: request(.get, "/", cookies: browser.cookieHeader)).headers["ETag"])
        // A weak tag of 64 bits: W/"<11 base64url characters>".
        #expect(tag.hasPrefix("W/\"") && tag.hasSuffix("\"") && tag.utf8.count == 15, "\(tag)")
        #expect(Base64URL.decode(tag.dropFirst(3).dropLast())?.count == 8, "\(tag)")
        let revalidation = request(.get, "/", cookies: browser.cookieHeader, headers: ["If-None-Match": tag])
        #expect(app.coordinator.immediateResponse(to: revalidation)?.status == .notModified)
        try await expectSame(revalidation, on: app)
    }

    @Test func anUnknownOrMalformedSessionCookieIsClearedTheSameWay() async throws {
        let app = try await TestApp()
        let unknown = "quotebook_session=" + Base64URL.encode(SecureRandom.bytes(32))
        // Unknown: only storage can say so.
        #expect(app.coordinator.immediateResponse(to: request(.get, "/", cookies: unknown)) == nil)
        try await expectSame(request(.get, "/", cookies: "quotebook_session=nonsense"), on: app)
        #expect(app.coordinator.immediateResponse(to: request(.get, "/", cookies: "quotebook_session=nonsense"))?
            .headers.values(for: "Set-Cookie").first?.hasPrefix("quotebook_session=;") == true)
    }

    @Test func fallsBackWhenTheSessionIsDueForATouchThenAnswersOnceCached() async throws {
        let clock = TestClock()
        let app = try await TestApp(now: { clock.now })
        let cookies = try await app.signedIn("ada").cookieHeader
        try await expectSame(request(.get, "/", cookies: cookies), on: app)
        clock.advance(by: SessionKeeper.touchInterval)
        // "Last used" must be written first: the async path does it.
        #expect(app.coordinator.immediateResponse(to: request(.get, "/", cookies: cookies)) == nil)
        let touched = await app.coordinator.respond(to: request(.get, "/", cookies: cookies))
        #expect(touched.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("quotebook_session=") })
        clock.advance(by: 1)
        try await expectSame(request(.get, "/quotes", cookies: cookies), on: app)
    }

    /// A search of a large book that nothing kept is a byte search of milliseconds: never on the
    /// event loop. The async path answers it (and the index keeps it); then the same search is
    /// answered at once, with the same page.
    @Test func aSearchOfALargeBookGoesToTheAsyncPathUntilItIsKept() async throws {
        let filler = String(repeating: "lorem ipsum dolor ", count: 6)
        let seed = (1...3_000).map {
            AppAction.addQuote(QuoteDraft(text: "\(filler)quote \($0)", author: "Author"), by: nil, at: TestApp.fixedNow)
        }
        let app = try await TestApp(seed: seed)
        #expect(app.store.state.searchIndex.byteCount > QuoteSearchIndex.quickSearchBytes)
        for (number, cookies) in [(2999, ""), (2998, try await app.signedIn("ada").cookieHeader)] {
            let search = request(.get, "/quotes?q=quote+\(number)", cookies: cookies)
            #expect(app.coordinator.immediateResponse(to: search) == nil)
            let usual = await app.coordinator.respond(to: search)
            #expect(usual.status == .ok)
            #expect(usual.text.contains("quote \(number)”</a>"))
            try await expectSame(search, on: app)
        }
        #expect(app.coordinator.immediateResponse(to: request(.get, "/quotes?page=2", cookies: "")) != nil, "no search: at once")
    }

    /// One path for every child: pages of accounts, profiles and the system, files, 404s and a
    /// POST decided before its form (no CSRF binding) answer at once too, with the same bytes.
    @Test(arguments: [
        (HTTPMethod.post, "/quotes"), (.get, "/login"), (.get, "/signup"), (.get, "/healthz"), (.get, "/site.css"), (.get, "/nowhere"),
        (.get, "/profile"),
    ])
    func everyChildAnswersAtOnceWhatNeedsNoWaiting(method: HTTPMethod, target: String) async throws {
        let app = try await TestApp()
        let immediate = try #require(app.coordinator.immediateResponse(to: request(method, target, cookies: "")))
        let usual = await app.coordinator.respond(to: request(method, target, cookies: ""))
        #expect(immediate.status == usual.status)
        #expect(immediate.headers.values(for: "Location") == usual.headers.values(for: "Location"))
        #expect(immediate.headers["Content-Type"] == usual.headers["Content-Type"])
    }

    /// What reads storage or hashes a password waits, whoever asks.
    @Test(arguments: [(HTTPMethod.get, "/quotes/1/history"), (.get, "/users/ada/photo")])
    func leavesWhatMustWaitToATask(method: HTTPMethod, target: String) async throws {
        let app = try await TestApp()
        #expect(app.coordinator.immediateResponse(to: request(method, target, cookies: "")) == nil)
        var browser = try await app.signedIn("ada")
        #expect(app.coordinator.immediateResponse(to: request(method, target, cookies: browser.cookieHeader)) == nil)
        let form = "csrf_token=\(try await browser.csrfToken(from: "/quotes/new"))&text=Words&author=Someone"
        var post = request(.post, "/quotes", cookies: browser.cookieHeader, headers: ["Content-Type": "application/x-www-form-urlencoded"])
        post.body = Array(form.utf8)
        #expect(app.coordinator.immediateResponse(to: post) == nil, "a save waits for the journal")
    }
}

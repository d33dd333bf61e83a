import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// The cache of signed-out pages (``PageCache``) on its own, and as the root's synchronous path
/// uses it: never a page from before a change, never one page for two kinds of visitor.
@Suite struct PageCacheTests {
    func entry(_ text: String, tag: String = "W/\"t\"") -> PageCache.Entry {
        PageCache.Entry(response: HTTPResponse(status: .ok, body: Array(text.utf8)), tag: tag, routeLabel: "quotes_list")
    }

    @Test func findsAPageOnlyAtTheRevisionItWasStoredAt() {
        let cache = PageCache()
        cache.store(entry("page"), for: "/quotes", revision: 3)
        #expect(cache.entry(for: "/quotes", revision: 3)?.response.body == Array("page".utf8))
        #expect(cache.entry(for: "/quotes", revision: 4) == nil)
        #expect(cache.entry(for: "/quotes", revision: 2) == nil)
        #expect(cache.entry(for: "/quotes?page=2", revision: 3) == nil)
    }

    @Test func aNewerRevisionDropsEveryOlderPage() {
        let cache = PageCache()
        cache.store(entry("list"), for: "/quotes", revision: 1)
        cache.store(entry("home"), for: "/", revision: 1)
        cache.store(entry("new home"), for: "/", revision: 2)
        #expect(cache.count == 1)
        #expect(cache.entry(for: "/", revision: 2)?.response.body == Array("new home".utf8))
        #expect(cache.entry(for: "/quotes", revision: 1) == nil)
    }

    @Test func aPageRenderedAtAnOlderRevisionIsNotKept() {
        let cache = PageCache()
        cache.store(entry("new"), for: "/", revision: 5)
        cache.store(entry("old"), for: "/", revision: 4)
        #expect(cache.entry(for: "/", revision: 5)?.response.body == Array("new".utf8))
        #expect(cache.entry(for: "/", revision: 4) == nil)
    }

    @Test func startsOverWhenItsBodiesPassTheLimit() {
        let cache = PageCache(maximumBytes: 10)
        cache.store(entry("12345"), for: "/a", revision: 1)
        cache.store(entry("12345"), for: "/b", revision: 1)
        #expect(cache.count == 2)
        cache.store(entry("123"), for: "/c", revision: 1)
        #expect(cache.count == 1)
        #expect(cache.entry(for: "/c", revision: 1) != nil)
        #expect(cache.entry(for: "/a", revision: 1) == nil)
        cache.store(entry("12345678901"), for: "/big", revision: 1)
        #expect(cache.entry(for: "/big", revision: 1) == nil)
        #expect(cache.count == 1)
    }

    @Test func replacingAPageCountsOnlyItsNewBody() {
        let cache = PageCache(maximumBytes: 10)
        for _ in 0..<5 { cache.store(entry("123456"), for: "/a", revision: 1) }
        cache.store(entry("1234"), for: "/b", revision: 1)
        #expect(cache.count == 2)
    }

    // MARK: The root's synchronous path

    func get(_ target: String, cookies: String = "", headers: HTTPHeaders = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: .get, target: target, headers: ["Host": "test"])
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    @Test(arguments: ["/", "/quotes", "/quotes?q=infinite", "/quotes/1"])
    func aSignedOutPageShowsAChangeMadeAfterItWasCached(target: String) async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        let user = try #require(app.store.state.users.values.first { $0.username == Username("ada") })
        let before = try #require(app.coordinator.immediateResponse(to: get(target)))
        #expect(before.text.contains("Two things are infinite"))
        #expect(app.coordinator.immediateResponse(to: get(target))?.body == before.body)
        let edit = AppAction.editQuote(
            QuoteID(1), QuoteDraft(text: "Two things are infinite & <changed>", author: "Albert Einstein"), baseVersion: 1, by: user.id,
            at: TestApp.fixedNow)
        guard case .success = try await app.store.dispatch(edit) else {
            Issue.record("the edit was refused")
            return
        }
        let after = try #require(app.coordinator.immediateResponse(to: get(target)))
        #expect(after.text.contains("Two things are infinite &amp; &lt;changed&gt;"))
        #expect(after.headers["ETag"] != before.headers["ETag"])
        #expect(after.body == (await app.coordinator.respond(to: get(target))).body)
    }

    @Test func theRootKeepsSignedOutPagesOnlyAndDropsThemAtTheNextRevision() async throws {
        let app = try await TestApp()
        let first = try #require(app.coordinator.immediateResponse(to: get("/quotes")))
        #expect(app.coordinator.cachedPageCount == 1)
        // Asked again, it is the kept page: nothing new is stored.
        #expect(app.coordinator.immediateResponse(to: get("/quotes"))?.body == first.body)
        #expect(app.coordinator.cachedPageCount == 1)
        var browser = app.browser()
        _ = await browser.get("/login")
        _ = try #require(app.coordinator.immediateResponse(to: get("/", cookies: browser.cookieHeader)))
        #expect(app.coordinator.cachedPageCount == 1, "a pre-session visitor's page is never kept")
        _ = try await app.signedIn("ada")
        _ = try #require(app.coordinator.immediateResponse(to: get("/")))
        #expect(app.coordinator.cachedPageCount == 1, "the sign-up moved the revision: /quotes was dropped")
    }

    @Test func developmentModeKeepsNoPages() async throws {
        let app = try await TestApp(isDevelopment: true)
        _ = try #require(app.coordinator.immediateResponse(to: get("/quotes")))
        _ = try #require(app.coordinator.immediateResponse(to: get("/quotes")))
        #expect(app.coordinator.cachedPageCount == 0)
    }

    @Test func aSignedInVisitorNeverGetsTheSignedOutPageNorTheOtherWayRound() async throws {
        let app = try await TestApp()
        let browser = try await app.signedIn("ada", displayName: "Ada Lovelace")
        let signedOut = try #require(app.coordinator.immediateResponse(to: get("/quotes")))
        let signedIn = try #require(app.coordinator.immediateResponse(to: get("/quotes", cookies: browser.cookieHeader)))
        #expect(!signedOut.text.contains("Ada Lovelace"))
        #expect(signedIn.text.contains("Ada Lovelace"))
        #expect(signedIn.text.contains("csrf_token"))
        let again = try #require(app.coordinator.immediateResponse(to: get("/quotes")))
        #expect(again.body == signedOut.body)
        #expect(!again.text.contains("csrf_token"))
    }

    @Test func aVisitorWithAPreSessionCookieGetsTheirOwnTag() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        _ = await browser.get("/login")
        #expect(browser.cookieHeader.contains("quotebook_presession="))
        let signedOut = try #require(app.coordinator.immediateResponse(to: get("/")))
        let withCookie = try #require(app.coordinator.immediateResponse(to: get("/", cookies: browser.cookieHeader)))
        let expected = await app.coordinator.respond(to: get("/", cookies: browser.cookieHeader))
        #expect(withCookie.headers["ETag"] == expected.headers["ETag"])
        #expect(withCookie.headers["ETag"] != signedOut.headers["ETag"])
    }

    @Test func tagsDifferByPreSessionCookieAndTargetAndAreStableOtherwise() async throws {
        let app = try await TestApp()
        var first = app.browser()
        var second = app.browser()
        _ = await first.get("/login")
        _ = await second.get("/login")
        #expect(first.cookieHeader != second.cookieHeader)
        func tag(_ target: String, _ cookies: String) async throws -> String {
            try #require(await app.coordinator.respond(to: get(target, cookies: cookies)).headers["ETag"])
        }
        let home = try await tag("/", first.cookieHeader)
        #expect(try await tag("/", first.cookieHeader) == home, "the same page for the same visitor")
        #expect(try await tag("/", second.cookieHeader) != home, "another pre-session cookie's forms differ")
        #expect(try await tag("/quotes", first.cookieHeader) != home)
        #expect(try await tag("/quotes?q=a", first.cookieHeader) != tag("/quotes?q=b", first.cookieHeader))
        let notModified = await app.coordinator.respond(to: get("/", cookies: first.cookieHeader, headers: ["If-None-Match": home]))
        #expect(notModified.status == .notModified)
        let notTheirs = await app.coordinator.respond(to: get("/", cookies: second.cookieHeader, headers: ["If-None-Match": home]))
        #expect(notTheirs.status == .ok)
    }

    @Test func aCachedPageRevalidatesWithA304() async throws {
        let app = try await TestApp(metrics: true)
        let first = try #require(app.coordinator.immediateResponse(to: get("/quotes/1")))
        let tag = try #require(first.headers["ETag"])
        let revalidated = try #require(app.coordinator.immediateResponse(to: get("/quotes/1", headers: ["If-None-Match": tag])))
        #expect(revalidated.status == .notModified)
        #expect(revalidated.headers["ETag"] == tag)
        #expect(revalidated.body.isEmpty)
        let other = try #require(app.coordinator.immediateResponse(to: get("/quotes/1", headers: ["If-None-Match": "W/\"other\""])))
        #expect(other.status == .ok)
        #expect(other.body == first.body)
        let counters = try #require(app.metrics?.requests)
        #expect(counters.value("quotes_show", status: 200) == 2)
        #expect(counters.value("quotes_show", status: 304) == 1)
    }
}

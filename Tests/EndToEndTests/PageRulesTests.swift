import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Rules every page follows, checked through the coordinator tree with in-memory requests.
@Suite struct PageRulesTests {
    @Test(arguments: [
        "/", "/quotes", "/quotes/1", "/quotes/1/edit", "/nowhere", "/login", "/users/ada", "/profile/edit",
    ])
    func htmlPagesAreCompleteDocumentsWithSecurityHeaders(path: String) async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = await browser.get(path)
        #expect(response.headers["Cache-Control"] == (path == "/nowhere" ? "no-store" : "private, no-cache"))
        #expect(response.text.hasPrefix("<!doctype html>"))
        #expect(response.text.contains("<html lang=\"en\">"))
        #expect(response.text.contains("<title>"))
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'self'") == true)
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["Content-Security-Policy"]?.contains("object-src 'none'") == true)
        #expect(response.headers["X-Frame-Options"] == "DENY")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] == "same-origin")
    }

    @Test(arguments: ["/site.css", "/live.js"])
    func publicFilesSayNosniffAnd304sToo(path: String) async throws {
        let app = try await TestApp()
        let file = await app.get(path)
        #expect(file.status == .ok)
        #expect(file.headers["X-Content-Type-Options"] == "nosniff")
        let etag = try #require(file.headers["ETag"])
        let again = await app.respond(HTTPRequest(method: .get, target: path, headers: ["Host": "test", "If-None-Match": etag]))
        #expect(again.status == .notModified)
        #expect(again.headers["X-Content-Type-Options"] == "nosniff")
    }

    /// Pages link the stylesheet at an address with its content's version, which is kept a year
    /// (`immutable`) and serves the file; the plain path still serves it too, revalidated. A
    /// signed-in page and a signed-out one link the same address.
    @Test func pagesLinkTheStylesheetAtAnAddressThatIsKeptAYear() async throws {
        let app = try await TestApp()
        let signedOut = await app.get("/")
        let address = try #require(signedOut.text.firstMatch(of: #/<link rel="stylesheet" href="(/site\.css\?v=[0-9a-f]{16})">/#)?.1)
        var ada = try await app.signedIn("ada")
        #expect(await ada.get("/quotes").text.contains("<link rel=\"stylesheet\" href=\"\(address)\">"))
        let kept = await app.get(String(address))
        let plain = await app.get("/site.css")
        #expect(kept.status == .ok && kept.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        #expect(kept.headers["Content-Type"] == "text/css; charset=utf-8" && kept.body == plain.body && !kept.body.isEmpty)
        #expect(plain.headers["Cache-Control"] == "no-cache")
    }

    @Test(arguments: ["/signup", "/login", "/", "/quotes/1"])
    func signedOutPagesFollowTheRulesToo(path: String) async throws {
        var browser = try await TestApp().browser()
        let response = await browser.get(path)
        #expect(response.status == .ok)
        #expect(response.text.hasPrefix("<!doctype html>"))
        #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'self'") == true)
    }

    @Test func anUnchangedPageRevalidatesAs304AndAChangeOrAnotherPersonGetsAFreshOne() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        let first = await ada.get("/quotes/1")
        let tag = try #require(first.headers["ETag"])
        let again = await ada.get("/quotes/1", headers: ["If-None-Match": tag])
        #expect(again.status == .notModified)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == tag)
        var bob = try await app.signedIn("bob")
        #expect(await bob.get("/quotes/1", headers: ["If-None-Match": tag]).status == .ok, "another person's page differs")
        #expect(await app.get("/quotes/1").headers["ETag"] != tag, "and so does the signed-out page")
        _ = try await ada.submit("/quotes/1/favorite", [:])
        let changed = await ada.get("/quotes/1", headers: ["If-None-Match": tag])
        #expect(changed.status == .ok)
        #expect(changed.text.contains("Your favourite"))
        #expect(await ada.get("/quotes/2", headers: ["If-None-Match": tag]).status == .notFound)
    }

    /// Pages that show account storage (the edit page's addresses, the sessions) or a
    /// moderator's lists are tagged from their bytes: the same page revalidates as a 304, a
    /// change shows; another person's tag never matches.
    @Test func pagesOfAccountStorageRevalidateByTheirContent() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        for path in ["/profile/edit", "/profile/email", "/profile/sessions"] {
            let page = await ada.get(path)
            let tag = try #require(page.headers["ETag"], "\(path)")
            #expect(tag.hasPrefix("W/\""))
            let again = await ada.get(path, headers: ["If-None-Match": tag])
            #expect(again.status == .notModified && again.body.isEmpty, "\(path)")
            #expect(again.headers["Cache-Control"] == "private, no-cache")
            var bob = try await app.signedIn("bob\(path.count)")
            #expect(await bob.get(path, headers: ["If-None-Match": tag]).status == .ok, "another person's \(path)")
        }
        // A change in account storage alone (a new address waiting for its link; the state's
        // revision stays): the page it shows is fresh, not a 304.
        let emailTag = try #require(await ada.get("/profile/email").headers["ETag"])
        #expect(try await ada.submit("/profile/email", ["email": "ada@example.org", "current_password": TestApp.password], formPage: "/profile/email").status == .seeOther)
        let pending = await ada.get("/profile/email", headers: ["If-None-Match": emailTag])
        #expect(pending.status == .ok && pending.text.contains("ada@example.org"))
        let before = try #require(await ada.get("/profile/edit").headers["ETag"])
        #expect(try await ada.submit("/profile/name", ["display_name": "Ada Byron"], formPage: "/profile/edit").status == .seeOther)
        let renamed = await ada.get("/profile/edit", headers: ["If-None-Match": before])
        #expect(renamed.status == .ok && renamed.text.contains("Ada Byron"))
    }

    @Test func developmentPagesCarryNoTag() async throws {
        #expect(try await TestApp(isDevelopment: true).get("/").headers["ETag"] == nil)
    }

    @Test func anEmptyBookStillHasAHomePage() async throws {
        let response = try await TestApp(seed: []).get("/")
        #expect(response.status == .ok)
        #expect(response.text.contains("<!doctype html>"))
    }

    @Test func unknownPathIs404Page() async throws {
        let response = try await TestApp().get("/no/such/page")
        #expect(response.status == .notFound)
        #expect(response.text.contains("Page not found"))
    }

    @Test func unknownQuoteIs404Page() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        #expect(await browser.get("/quotes/99").status == .notFound)
        #expect(await browser.get("/quotes/99/edit").status == .notFound)
        #expect(try await browser.submit("/quotes/99", ["text": "a", "author": "b", "version": "1"]).status == .notFound)
        #expect(await browser.get("/users/nobody").status == .notFound)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let app = try await TestApp()
        let response = await app.respond(HTTPRequest(method: .delete, target: "/quotes/1", headers: ["Host": "t"]))
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, POST, HEAD")
        let onFile = await app.respond(HTTPRequest(method: .post, target: "/site.css", headers: ["Host": "t"]))
        #expect(onFile.status == .methodNotAllowed)
        #expect(onFile.headers["Allow"] == "GET, HEAD")
    }

    @Test func typedMarkupIsShownAsText() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("eve", displayName: "<b>Eve</b> & \"co\"")
        let save = try await browser.submit(
            "/quotes/1", ["text": "<script>alert('x')</script>", "author": "\"Eve\" & co", "version": "1"])
        #expect(save.status == .seeOther)
        #expect(try await browser.submit("/quotes/1/favorite", [:]).status == .seeOther)
        for path in ["/users/eve", "/profile/edit"] {
            let page = await browser.get(path).text
            #expect(!page.contains("<b>Eve</b>"))
            #expect(page.contains("&lt;b&gt;Eve&lt;/b&gt; &amp; &quot;co&quot;"))
        }
        for path in ["/", "/quotes/1", "/quotes/1/edit", "/users/eve"] {
            let page = await browser.get(path).text
            #expect(!page.contains("<script>"))
            #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
            #expect(page.contains("&quot;Eve&quot; &amp; co"))
        }
    }

    @Test func incompleteFormIs400Page() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = try await browser.submit("/quotes/1", ["text": "no version", "author": "x"])
        #expect(response.status == .badRequest)
        #expect(response.text.contains("<!doctype html>"))
        #expect(app.store.state.quotes[QuoteID(1)]?.version == 1)
    }

    @Test func healthCheckIsPlainOK() async throws {
        let response = try await TestApp().get("/healthz")
        #expect(response.status == .ok)
        #expect(response.text == "ok")
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain") == true)
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func stylesheetIsServedFromPublic() async throws {
        let response = try await TestApp().get("/site.css")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/css") == true)
        #expect(response.text.contains("font"))
    }

    @Test(arguments: [
        ("/quotes/1/edit", ["text", "author"]), ("/profile/edit", ["display_name", "photo"]),
        ("/signup", ["username", "display_name", "password", "password_confirmation"]), ("/login", ["username", "password"]),
    ])
    func everyFormFieldHasALabel(path: String, ids: [String]) async throws {
        let app = try await TestApp()
        var browser = path == "/signup" || path == "/login" ? app.browser() : try await app.signedIn("ada")
        let page = await browser.get(path).text
        for id in ids {
            #expect(page.contains("<label for=\"\(id)\">"))
            #expect(page.contains("id=\"\(id)\""))
        }
    }
}

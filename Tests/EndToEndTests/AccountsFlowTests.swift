import App
import Foundation
import HTTPServer
import Logging
import Store
import Synchronization
import TestSupport
import Testing

/// Sign-up, sign-in, sign-out, sessions, CSRF and the order of checks, driven through the
/// coordinator tree by a browser with a cookie jar.
@Suite struct AccountsFlowTests {
    func signUpFields(_ username: String, password: String = TestApp.password) -> KeyValuePairs<String, String> {
        ["username": username, "display_name": "Ada Lovelace", "password": password, "password_confirmation": password]
    }

    @Test func signingUpSetsASecureSessionCookieAndSignsIn() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        let form = await browser.get("/signup")
        #expect(form.headers["Set-Cookie"]?.hasPrefix("quotebook_presession=") == true)
        let response = try await browser.submit("/signup", signUpFields("Ada"))
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
        #expect(response.headers["Cache-Control"] == "no-store")
        let cookie = try #require(response.headers.values(for: "Set-Cookie").first { $0.hasPrefix("quotebook_session=") })
        for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] { #expect(cookie.contains(attribute)) }
        #expect(!cookie.contains("Secure"))
        let token = String(cookie.dropFirst("quotebook_session=".count).prefix { $0 != ";" })
        #expect(try #require(Base64URL.decode(token)).count == 32)
        let home = await browser.get("/").text
        #expect(home.contains(">Ada Lovelace</a>"))
        #expect(home.contains("Sign out"))
        #expect(!home.contains(">Sign in</a>"))
        #expect(app.store.state.user(named: Username("ada")!)?.displayName == "Ada Lovelace")
        #expect(!app.logSink.entries.contains { $0.message.contains(TestApp.password) || $0.message.contains(token) })
    }

    @Test func secureCookiesAreSecureHostCookiesAndAreReadByThatName() async throws {
        let app = try await TestApp(secureCookies: true)
        var browser = app.browser()
        let form = await browser.get("/signup")
        #expect(form.headers["Set-Cookie"]?.hasPrefix("__Host-quotebook_presession=") == true)
        let response = try await browser.submit("/signup", signUpFields("ada"))
        #expect(response.status == .seeOther)
        let setCookies = response.headers.values(for: "Set-Cookie")
        #expect(setCookies.contains { $0.hasPrefix("__Host-quotebook_session=") })
        // What `__Host-` demands (RFC 6265bis §4.1.3.2): Secure, Path=/, no Domain.
        for cookie in setCookies + [form.headers["Set-Cookie"] ?? ""] {
            #expect(cookie.hasPrefix("__Host-") && cookie.contains("; Secure") && cookie.contains("; Path=/"), "\(cookie)")
            #expect(!cookie.lowercased().contains("domain="), "\(cookie)")
        }
        let token = try #require(browser.cookies["__Host-quotebook_session"])
        #expect(await browser.get("/").text.contains(">Ada Lovelace</a>"))

        // The same token under the unprefixed name could have been set by anyone: it signs no one in.
        let plain = await app.respond(
            HTTPRequest(method: .get, target: "/", headers: ["Host": "test", "Cookie": "quotebook_session=\(token)"]))
        #expect(plain.text.contains(">Sign in</a>"))
        #expect(!plain.text.contains("Ada Lovelace"))

        // Signing out deletes the prefixed cookie.
        let out = try await browser.submit("/logout", [:])
        #expect(out.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("__Host-quotebook_session=;") && $0.contains("Max-Age=0") })
        #expect(browser.cookies["__Host-quotebook_session"] == nil)
    }

    @Test func withoutSecureCookiesTheNamesArePlain() async throws {
        var browser = try await TestApp().browser()
        let response = try await browser.submit("/signup", signUpFields("ada"))
        #expect(response.headers.values(for: "Set-Cookie").allSatisfy { !$0.hasPrefix("__Host-") && !$0.contains("Secure") })
        #expect(browser.cookies["quotebook_session"] != nil)
    }

    @Test func aSignUpWithErrorsIs422KeepingWhatWasTypedButNoPassword() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        let response = try await browser.submit(
            "/signup", ["username": "<b>x</b>", "display_name": "Kept <Name>", "password": "short", "password_confirmation": "short"])
        #expect(response.status == .unprocessableContent)
        #expect(response.text.contains("value=\"&lt;b&gt;x&lt;/b&gt;\""))
        #expect(response.text.contains("value=\"Kept &lt;Name&gt;\""))
        #expect(!response.text.contains("value=\"short\""))
        #expect(response.text.contains("at least 8 characters"))
        #expect(app.store.state.users.isEmpty)
    }

    @Test func aTakenUsernameIgnoringCaseIs422() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var other = app.browser()
        let response = try await other.submit("/signup", signUpFields("ADA"))
        #expect(response.status == .unprocessableContent)
        #expect(response.text.contains("That username is taken"))
    }

    @Test func signInWithAWrongPasswordIs401WithOneMessageAndTheUsernameKept() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var browser = app.browser()
        let wrong = try await browser.submit("/login", ["username": "Ada", "password": "not the password"])
        let unknown = try await browser.submit("/login", ["username": "nobody", "password": "not the password"])
        #expect(wrong.status == .unauthorized)
        #expect(unknown.status == .unauthorized)
        #expect(wrong.text.contains("value=\"Ada\""))
        // The same page for both, but for the username typed: nothing tells which was wrong.
        #expect(wrong.text.replacingOccurrences(of: "value=\"Ada\"", with: "") == unknown.text.replacingOccurrences(of: "value=\"nobody\"", with: ""))
        #expect(!wrong.text.contains("not the password"))
        #expect(browser.cookies["quotebook_session"] == nil)
    }

    @Test func fiveFailuresIn429EvenWithTheRightPassword() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var browser = app.browser()
        for _ in 0..<5 {
            #expect(try await browser.submit("/login", ["username": "ada", "password": "guess guess"]).status == .unauthorized)
        }
        let locked = try await browser.submit("/login", ["username": "ada", "password": TestApp.password])
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers["Retry-After"] == "60")
        #expect(browser.cookies["quotebook_session"] == nil)
    }

    @Test func signingInIssuesANewTokenAndEndsTheOldSession() async throws {
        let app = try await TestApp()
        var first = try await app.signedIn("ada")
        let before = try #require(first.cookies["quotebook_session"])
        let response = try await first.submit("/login", ["username": "ada", "password": TestApp.password], formPage: "/login")
        #expect(response.status == .seeOther)
        let after = try #require(first.cookies["quotebook_session"])
        #expect(after != before)
        // The old token signs no one in any more.
        let page = await app.respond(HTTPRequest(method: .get, target: "/profile/edit", headers: ["Host": "t", "Cookie": "quotebook_session=\(before)"]))
        #expect(page.status == .seeOther)
        #expect(page.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("quotebook_session=;") && $0.contains("Max-Age=0") })
    }

    @Test func aTokenPlantedBeforeSignInIsNotTheOneAfter() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        let planted = Base64URL.encode([UInt8](repeating: 7, count: 32))
        var victim = app.browser()
        _ = await victim.send(HTTPRequest(method: .get, target: "/login", headers: ["Host": "t", "Cookie": "quotebook_session=\(planted)"]))
        _ = try await victim.submit("/login", ["username": "ada", "password": TestApp.password])
        #expect(victim.cookies["quotebook_session"] != nil)
        #expect(victim.cookies["quotebook_session"] != planted)
    }

    @Test func signingOutDeletesTheSessionAndTheCookie() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let token = try #require(browser.cookies["quotebook_session"])
        let response = try await browser.submit("/logout", [:])
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
        #expect(browser.cookies["quotebook_session"] == nil)
        let replay = await app.respond(HTTPRequest(method: .get, target: "/profile", headers: ["Host": "t", "Cookie": "quotebook_session=\(token)"]))
        #expect(replay.status == .seeOther)
        #expect(replay.headers["Location"] == "/login?return_to=/profile")
    }

    @Test func aLiveSessionForAnAccountThisInstanceHasNotAppliedKeepsItsCookie() async throws {
        // With several instances: another one made the account and the session, and this one
        // has not applied the sign-up from the journal yet. Deleting the cookie would sign the
        // person out for good; the next request, once the sign-up is applied, is signed in.
        let app = try await TestApp()
        let issued = try #require(await SessionKeeper(storage: app.sessionStorage).start(for: UserID(99), whilePasswordIs: nil, now: TestApp.fixedNow))
        let cookie = "quotebook_session=\(issued.token)"
        let request = HTTPRequest(method: .get, target: "/", headers: ["Host": "t", "Cookie": cookie])
        for _ in 0..<2 {
            let page = await app.respond(request)
            #expect(page.status == .ok)
            #expect(page.text.contains("Sign in"), "signed out for this request")
            #expect(!page.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("quotebook_session=") })
        }
    }

    @Test func aProtectedPageSendsToSignInAndBackAfterwards() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var browser = app.browser()
        let redirect = await browser.get("/quotes/1/edit")
        #expect(redirect.status == .seeOther)
        #expect(redirect.headers["Location"] == "/login?return_to=/quotes/1/edit")
        let login = await browser.get("/login?return_to=/quotes/1/edit")
        #expect(login.text.contains("name=\"return_to\" value=\"/quotes/1/edit\""))
        let signedIn = try await browser.submit(
            "/login", ["username": "ada", "password": TestApp.password, "return_to": "/quotes/1/edit"], formPage: "/login?return_to=/quotes/1/edit")
        #expect(signedIn.status == .seeOther)
        #expect(signedIn.headers["Location"] == "/quotes/1/edit")
    }

    @Test(arguments: [
        "//evil.example/", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example", "/%5Cevil.example", "javascript:alert(1)",
        "/\r\nSet-Cookie: x=1", "/no/such/page", "/users/ada/photo", "/logout",
    ])
    func returnToNeverLeavesTheSiteOrReachesANonPage(returnTo: String) async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var browser = app.browser()
        let response = try await browser.submit("/login", ["username": "ada", "password": TestApp.password, "return_to": returnTo])
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
    }

    @Test func aSignedOutPostGoesToSignInPlain() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        let response = try await browser.submit("/quotes/1", ["text": "x", "author": "y", "version": "1"], formPage: "/login")
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/login")
        #expect(app.store.state.quotes[QuoteID(1)]?.version == 1)
    }

    @Test func signUpIsForSignedOutPeople() async throws {
        var browser = try await TestApp().signedIn("ada")
        let response = await browser.get("/signup")
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/")
    }

    @Test func sessionsLastThirtyIdleDays() async throws {
        let clock = Mutex(TestApp.fixedNow)
        let app = try await TestApp(now: { clock.withLock { $0 } })
        var browser = try await app.signedIn("ada")
        for _ in 0..<3 {
            clock.withLock { $0 = $0.addingTimeInterval(20 * 86_400) }
            #expect(await browser.get("/").text.contains("Sign out"), "used within 30 days: still signed in")
        }
        clock.withLock { $0 = $0.addingTimeInterval(31 * 86_400) }
        #expect(!(await browser.get("/").text.contains("Sign out")))
    }
}

/// CSRF: every POST needs the token bound to its session or pre-session, checked before
/// sign-in and before anything changes.
@Suite struct CSRFFlowTests {
    @Test(arguments: ["/quotes/1", "/quotes/1/favorite", "/logout", "/profile/name", "/profile/photo/delete"])
    func aSignedInPostWithoutTheTokenIs403AndChangesNothing(path: String) async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let before = app.store.state
        let response = await browser.post(path, ["text": "Forged", "author": "Mallory", "version": "1", "display_name": "Mallory"])
        #expect(response.status == .forbidden)
        #expect(response.text.contains("<!doctype html>"))
        #expect(app.store.state == before)
        #expect(await browser.get("/").text.contains("Sign out"), "still signed in after a forged sign-out")
    }

    @Test func aTokenFromAnotherSessionIs403() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        var bob = try await app.signedIn("bob")
        let bobsToken = try await bob.csrfToken(from: "/")
        let response = await ada.post("/profile/name", ["display_name": "Hijacked", "csrf_token": bobsToken])
        #expect(response.status == .forbidden)
        #expect(app.store.state.users[UserID(1)]?.displayName == "Ada")
    }

    @Test func signedOutFormsAreBoundToThePreSessionCookie() async throws {
        let app = try await TestApp()
        var browser = app.browser()
        let token = try await browser.csrfToken(from: "/signup")
        var stranger = app.browser()
        _ = await stranger.get("/signup")  // a pre-session of its own
        let forged = await stranger.post(
            "/signup", ["username": "mallory", "display_name": "M", "password": "long enough", "password_confirmation": "long enough", "csrf_token": token])
        #expect(forged.status == .forbidden)
        let noCookie = await app.post("/login", form: ["username": "ada", "password": "x", "csrf_token": token])
        #expect(noCookie.status == .forbidden)
        #expect(app.store.state.users.isEmpty)
    }

    @Test func csrfIsCheckedBeforeSignIn() async throws {
        let response = try await TestApp().post("/quotes/1", form: ["text": "x", "author": "y", "version": "1"])
        #expect(response.status == .forbidden)
    }

    @Test func unknownPathsAndWrongMethodsComeBeforeCSRF() async throws {
        let app = try await TestApp()
        #expect(await app.post("/nowhere", form: [:]).status == .notFound)
        let wrong = await app.respond(HTTPRequest(method: .post, target: "/signup/x", headers: ["Host": "t"]))
        #expect(wrong.status == .notFound)
        let put = await app.respond(HTTPRequest(method: .put, target: "/login", headers: ["Host": "t"]))
        #expect(put.status == .methodNotAllowed)
        #expect(put.headers["Allow"] == "GET, POST, HEAD")
    }
}

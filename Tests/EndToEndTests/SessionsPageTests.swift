import App
import Foundation
import HTTPServer
import Store
import Synchronization
import TestSupport
import Testing

/// Where a person is signed in (`/profile/sessions`): the list, signing one or all others out,
/// and the hostile forms (someone else's session id, no token).
@Suite struct SessionsPageTests {
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"

    /// A new browser signed in as `username` that sends `userAgent`.
    static func signIn(_ app: TestApp, _ username: String, userAgent: String) async throws -> TestBrowser {
        var browser = app.browser()
        let token = try await browser.csrfToken(from: "/login")
        let body = URLEncodedForm.encode(pairs: [
            (name: "username", value: username), (name: "password", value: TestApp.password), (name: "csrf_token", value: token),
        ])
        let response = await browser.send(
            HTTPRequest(
                method: .post, target: "/login",
                headers: ["Host": "test", "Content-Type": "application/x-www-form-urlencoded", "User-Agent": userAgent],
                body: Array(body.utf8)))
        guard response.status == .seeOther else { throw TestBrowser.Failure("sign-in answered \(response.status)") }
        return browser
    }

    /// The sign-out form actions on `page`, in order.
    static func endActions(in page: String) -> [String] {
        page.components(separatedBy: "action=\"/profile/sessions/").dropFirst().compactMap { rest in
            let path = rest.prefix { $0 != "\"" }
            return path.hasSuffix("/end") ? "/profile/sessions/" + path : nil
        }
    }

    /// The sign-out form action of the session listed as `browser` on `page`.
    static func endAction(for browser: String, in page: String) -> String? {
        page.components(separatedBy: "<li class=\"session").first { $0.contains(">\(browser)") }.flatMap { endActions(in: $0).first }
    }

    @Test func theListShowsEachSessionsBrowserAndMarksThisOne() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var laptop = try await Self.signIn(app, "ada", userAgent: Self.firefox)
        _ = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        _ = try await app.signedIn("bob")

        let page = await laptop.get("/profile/sessions")
        #expect(page.status == .ok)
        #expect(page.headers["Cache-Control"] == "private, no-cache")
        // It shows account storage, which changes without the state: tagged from its bytes, so
        // revalidating the same list is a 304, and a new session is never hidden by one.
        let tag = try #require(page.headers["ETag"])
        let same = await laptop.get("/profile/sessions", headers: ["If-None-Match": tag])
        #expect(same.status == .notModified && same.body.isEmpty && same.headers["ETag"] == tag)
        _ = try await Self.signIn(app, "ada", userAgent: "Opera/9.80 (Windows NT 6.1)")
        let grown = await laptop.get("/profile/sessions", headers: ["If-None-Match": tag])
        #expect(grown.status == .ok && grown.headers["ETag"] != tag && Self.endActions(in: grown.text).count == 3)
        #expect(page.text.contains("Firefox on Linux <span class=\"badge\">This browser</span>"))
        #expect(page.text.contains("Safari on iOS"))
        #expect(page.text.contains("An unknown browser"), "the sign-up sent no User-Agent")
        #expect(page.text.contains("22 Nov 2026, 07:00 UTC"))
        #expect(Self.endActions(in: page.text).count == 2, "a Sign out for each other session, none for this one or bob's")
        #expect(page.text.contains("Sign out everywhere else"))
    }

    /// `--sessions-per-account`: a sign-in past the account's sessions ends the one used least
    /// recently (here the sign-up's, unused since), which then signs no one in; the page lists
    /// the rest.
    @Test func aSignInPastTheAccountsSessionsSignsOutTheLeastRecentlyUsed() async throws {
        var limits = AccountLimits()
        limits.sessionsPerAccount = 2
        let clock = Mutex(TestApp.fixedNow)
        let app = try await TestApp(now: { clock.withLock { $0 } }, accountLimits: limits)
        var first = try await app.signedIn("ada")
        clock.withLock { $0 += 2 * SessionKeeper.touchInterval }
        var laptop = try await Self.signIn(app, "ada", userAgent: Self.firefox)
        clock.withLock { $0 += 2 * SessionKeeper.touchInterval }
        _ = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        #expect(await first.get("/profile/edit").status == .seeOther, "the least recently used session ended")
        let page = await laptop.get("/profile/sessions")
        #expect(page.status == .ok)
        #expect(page.text.contains("Firefox on Linux <span class=\"badge\">This browser</span>"))
        #expect(page.text.contains("Safari on iOS"))
        #expect(!page.text.contains("An unknown browser"), "the sign-up's session is gone from the list")
    }

    @Test func signingOutAnotherSessionEndsItAtOnce() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        var laptop = try await Self.signIn(app, "ada", userAgent: Self.firefox)
        var phone = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        #expect(await phone.get("/profile/edit").status == .ok)

        let page = await laptop.get("/profile/sessions").text
        #expect(Self.endActions(in: page).count == 2, "the sign-up's session and the phone's")
        let end = try #require(Self.endAction(for: "Safari on iOS", in: page))
        let ended = try await laptop.submit(end, [:], formPage: "/profile/sessions")
        #expect(ended.status == .seeOther)
        #expect(ended.headers["Location"] == "/profile/sessions")
        #expect(await phone.get("/profile/edit").status == .seeOther, "the phone is signed out")
        let after = await laptop.get("/profile/sessions")
        #expect(after.status == .ok)
        #expect(!after.text.contains("Safari on iOS"))
        #expect(Self.endActions(in: after.text).count == 1)
    }

    @Test func signOutEverywhereElseKeepsOnlyThisSession() async throws {
        let app = try await TestApp()
        var first = try await app.signedIn("ada")
        var laptop = try await Self.signIn(app, "ada", userAgent: Self.firefox)
        var phone = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        var other = try await app.signedIn("ada2")
        var tablet = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        let ended = try await laptop.submit("/profile/sessions/end-others", [:], formPage: "/profile/sessions")
        #expect(ended.status == .seeOther)
        #expect(await phone.get("/profile/edit").status == .seeOther)
        #expect(await tablet.get("/profile/edit").status == .seeOther)
        #expect(await first.get("/profile/edit").status == .seeOther)
        #expect(await laptop.get("/profile/edit").status == .ok)
        #expect(await other.get("/profile/edit").status == .ok, "someone else's sessions stay")
        #expect(await laptop.get("/profile/sessions").text.contains("You are signed in here only."))
    }

    @Test func anotherPersonsSessionIdIs404AndEndsNothing() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("bob")
        var bob = try await Self.signIn(app, "bob", userAgent: Self.firefox)
        _ = try await app.signedIn("ada")
        var ada = try await Self.signIn(app, "ada", userAgent: Self.iPhone)
        let adasOther = try #require(Self.endActions(in: await ada.get("/profile/sessions").text).first)
        _ = try await Self.signIn(app, "bob", userAgent: Self.iPhone)
        let bobsPage = await bob.get("/profile/sessions").text
        let bobsOthers = Self.endActions(in: bobsPage)
        #expect(bobsOthers.count == 2)
        let bobsOther = try #require(Self.endAction(for: "Safari on iOS", in: bobsPage))

        let hostile = try await ada.submit(bobsOther, [:], formPage: "/profile/sessions")
        #expect(hostile.status == .notFound)
        #expect(await bob.get("/profile/sessions").text.contains("Safari on iOS"), "bob's session did not end")
        #expect(Self.endActions(in: await bob.get("/profile/sessions").text) == bobsOthers)
        for malformed in ["/profile/sessions/xyz/end", "/profile/sessions/" + String(repeating: "A", count: 64) + "/end"] {
            #expect(try await ada.submit(malformed, [:], formPage: "/profile/sessions").status == .notFound)
        }

        let replayed = await ada.post(adasOther, [:])
        #expect(replayed.status == .forbidden)
        #expect(Self.endActions(in: await ada.get("/profile/sessions").text) == [adasOther], "nothing ended without the token")
        #expect(await ada.post("/profile/sessions/end-others", [:]).status == .forbidden)
        #expect(Self.endActions(in: await ada.get("/profile/sessions").text) == [adasOther])
    }

    @Test func aHugeUserAgentIsCutShortAndMarkupNeverReachesThePage() async throws {
        let app = try await TestApp()
        let hostile = "<script>alert(1)</script> Firefox/1 " + String(repeating: "x", count: 10_000)
        _ = try await app.signedIn("ada")
        var browser = try await Self.signIn(app, "ada", userAgent: hostile)
        let page = await browser.get("/profile/sessions")
        #expect(page.status == .ok)
        #expect(page.text.contains("Firefox"))
        #expect(!page.text.contains("<script>alert"))
        let sessions = try await app.sessionStorage.sessions(of: UserID(1))
        #expect(sessions.allSatisfy { ($0.userAgent?.utf8.count ?? 0) <= SessionRecord.maximumUserAgentBytes })
    }
}

/// Issue 29: "last used" is shown to the hour, so it is left out when that hour began before the
/// sign-in (never a "last used" earlier than "signed in"), and never shown without a time.
@Suite struct SessionTimesTests {
    @Test func lastUsedIsShownOnlyWhenItIsLaterThanTheSignIn() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        let id = try #require(app.store.state.user(named: Username("ada")!)?.id)
        let hash = try await app.sessionStorage.passwordHash(of: id)
        let now = TestApp.fixedNow  // 22 Nov 2026, 07:00 UTC
        for (seed, began, used) in [(1, -900.0, -600.0), (2, -8_100.0, -60.0)] as [(UInt8, TimeInterval, TimeInterval)] {
            let record = SessionRecord(
                id: (0..<32).map { UInt8($0) &+ seed &* 41 }, userID: id, createdAt: now.addingTimeInterval(began),
                lastUsedAt: now.addingTimeInterval(used), userAgent: SessionsPageTests.firefox)
            #expect(try await app.sessionStorage.insert(record, ifPasswordIs: hash))
        }
        let page = await ada.get("/profile/sessions").text
        let items = page.components(separatedBy: "<li class=\"session").dropFirst()
        let times = items.compactMap { $0.components(separatedBy: "<p class=\"meta\">").dropFirst().first?.prefix(200) }
        #expect(items.count == 3)
        #expect(page.contains("Signed in <time datetime=\"2026-11-22T06:45:00Z\">22 Nov 2026, 06:45 UTC</time></p>"),
                "used only within the hour it began: no last used\n\(times)")
        #expect(page.contains(
            "Signed in <time datetime=\"2026-11-22T04:45:00Z\">22 Nov 2026, 04:45 UTC</time>; last used <time datetime=\"2026-11-22T06:00:00Z\">22 Nov 2026, 06:00 UTC</time></p>"),
            "\(times)")
        #expect(!page.contains("last used <time datetime=\"\""), "never the label without a time")
        #expect(page.components(separatedBy: "; last used").count - 1 == 1)
    }
}

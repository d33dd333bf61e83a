import App
import Foundation
import HTTPServer
import Store
import StoreSQLite
import TestSupport
import Testing

/// Changing a password (`/profile/password`): the throttle, the sessions it ends and the one it
/// rotates, and a journal that learns only that it happened.
@Suite struct PasswordChangeTests {
    static let newPassword = "a much longer passphrase"

    static func change(_ current: String, to new: String = newPassword, confirm: String? = nil) -> KeyValuePairs<String, String> {
        ["current_password": current, "password": new, "password_confirmation": confirm ?? new]
    }

    @Test func theFormIsPrivateLabelledAndCarriesTheToken() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let page = await browser.get("/profile/password")
        #expect(page.status == .ok)
        #expect(page.headers["Cache-Control"] == "private, no-cache")
        for id in ["current_password", "password", "password_confirmation"] {
            #expect(page.text.contains("<label for=\"\(id)\">"))
            #expect(page.text.contains("<input id=\"\(id)\" name=\"\(id)\" type=\"password\""))
        }
        #expect(page.text.contains("name=\"csrf_token\""))
        #expect(await app.get("/profile/password").status == .seeOther, "signed out: to the sign-in page")
    }

    @Test func aWrongCurrentPasswordIs422AndCountsTowardsTheSignInThrottle() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        for _ in 0..<5 {
            let wrong = try await browser.submit("/profile/password", Self.change("not my password"), formPage: "/profile/password")
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("That is not your current password."))
            #expect(!wrong.text.contains("not my password") && !wrong.text.contains(Self.newPassword), "passwords are never typed back")
        }
        // Five wrong tries locked the username: sign-in and the change itself wait now.
        var other = app.browser()
        let signIn = try await other.submit("/login", ["username": "ada", "password": TestApp.password])
        #expect(signIn.status == .tooManyRequests)
        let locked = try await browser.submit("/profile/password", Self.change(TestApp.password), formPage: "/profile/password")
        #expect(locked.status == .tooManyRequests)
        #expect(locked.headers["Retry-After"] != nil)
    }

    @Test func aShortOrMismatchedNewPasswordIs422WithoutCheckingTheCurrentOne() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let short = try await browser.submit("/profile/password", Self.change("wrong", to: "short"), formPage: "/profile/password")
        #expect(short.status == .unprocessableContent)
        #expect(short.text.contains("at least 8 characters"))
        let mismatch = try await browser.submit(
            "/profile/password", Self.change(TestApp.password, confirm: "something else entirely"), formPage: "/profile/password")
        #expect(mismatch.status == .unprocessableContent)
        #expect(mismatch.text.contains("The two passwords differ."))
        // Neither counted: five wrong current passwords still fit before the lock.
        var other = app.browser()
        #expect(try await other.submit("/login", ["username": "ada", "password": TestApp.password]).status == .seeOther)
    }

    @Test func successEndsEveryOtherSessionRotatesThisOneAndTheNewPasswordSignsIn() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        var phone = app.browser()
        #expect(try await phone.submit("/login", ["username": "ada", "password": TestApp.password]).status == .seeOther)
        let before = browser.cookieHeader

        let changed = try await browser.submit("/profile/password", Self.change(TestApp.password), formPage: "/profile/password")
        #expect(changed.status == .seeOther)
        #expect(changed.headers["Location"] == "/users/ada")
        #expect(browser.cookieHeader != before, "this browser got a new session token")
        #expect(await browser.get("/profile/edit").status == .ok, "and stays signed in")
        #expect(await phone.get("/profile/edit").status == .seeOther, "the other session ended")
        var old = app.browser()
        var replay = HTTPRequest(method: .get, target: "/profile/edit", headers: ["Host": "test"])
        replay.headers.add(name: "Cookie", value: before)
        #expect(await old.send(replay).status == .seeOther, "the old token of this browser is worthless")

        var fresh = app.browser()
        #expect(try await fresh.submit("/login", ["username": "ada", "password": TestApp.password]).status == .unauthorized)
        #expect(try await fresh.submit("/login", ["username": "ada", "password": Self.newPassword]).status == .seeOther)
    }

    @Test func theJournalRecordsTheChangeButNeverThePasswordOrItsHash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let app = try await TestApp(journalPath: path, backend: .sqlite)
        var browser = try await app.signedIn("ada")
        let changed = try await browser.submit("/profile/password", Self.change(TestApp.password), formPage: "/profile/password")
        #expect(changed.status == .seeOther)
        await app.close()

        let database = try SQLiteConnection(path: path)
        defer { database.close() }
        let actions = try database.prepare("SELECT action FROM journal ORDER BY sequence").rows { $0.text(at: 0) }
        let last = try #require(actions.last)
        #expect(last.contains("passwordChanged"))
        #expect(!last.contains("$y$") && !last.contains(Self.newPassword))
        let hashes = try database.prepare("SELECT hash FROM password").rows { $0.text(at: 0) }
        #expect(hashes.count == 1 && hashes[0].hasPrefix("$y$"), "the new hash is in account storage")
        #expect(!actions.contains { $0.contains(hashes[0]) }, "and nowhere in the journal")

        let reopened = try await TestApp(journalPath: path, backend: .sqlite)
        var again = reopened.browser()
        #expect(try await again.submit("/login", ["username": "ada", "password": Self.newPassword]).status == .seeOther)
    }

    @Test func withoutTheTokenTheChangeIs403AndNothingChanges() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let replayed = await browser.post("/profile/password", Self.change(TestApp.password))
        #expect(replayed.status == .forbidden)
        var fresh = app.browser()
        #expect(try await fresh.submit("/login", ["username": "ada", "password": TestApp.password]).status == .seeOther)
    }
}

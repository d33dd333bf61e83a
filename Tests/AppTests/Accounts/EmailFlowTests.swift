import App
import Foundation
import HTTPServer
import Logging
import Mail
import Store
import Synchronization
import TestSupport
import Testing

/// Email addresses and getting back into an account, through the coordinator tree as a browser
/// drives it (SPEC.md "Mail links"), on the run's backend (SQLite, or PostgreSQL in CI).
@Suite struct EmailFlowTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        private let date = Mutex(TestApp.fixedNow)
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// The link of `purpose` (`/email/verify` or `/password/reset`) in `message`, as the path and
    /// query a browser would open.
    static func link(_ path: String, in message: MailMessage) throws -> String {
        let prefix = "https://quotes.example.org" + path + "?token="
        guard let range = message.text.range(of: prefix) else { throw TestBrowser.Failure("no \(path) link in \(message.text)") }
        let token = message.text[range.upperBound...].prefix { !$0.isWhitespace }
        return path + "?token=" + token
    }

    static func token(in link: String) -> String { String(link.split(separator: "=", maxSplits: 1)[1]) }

    func signUp(_ app: TestApp, _ name: String, email: String) async throws -> TestBrowser {
        var browser = app.browser()
        let response = try await browser.submit(
            "/signup",
            [
                "username": name, "display_name": name.capitalized, "password": TestApp.password,
                "password_confirmation": TestApp.password, "email": email,
            ])
        #expect(response.status == .seeOther)
        return browser
    }

    /// Signs `name` up with `email`, then follows the verification link from the mail.
    func signUpVerified(_ app: TestApp, _ name: String, email: String) async throws -> TestBrowser {
        var browser = try await signUp(app, name, email: email)
        let mail = try #require(await app.deliverMail().last { $0.to.text == email })
        let link = try Self.link("/email/verify", in: mail)
        let verified = try await browser.submit("/email/verify", ["token": Self.token(in: link)], formPage: link)
        #expect(verified.status == .seeOther && verified.headers["Location"] == "/profile/edit")
        return browser
    }

    @Test func anAddressGivenAtSignUpIsVerifiedByItsMailedLinkOnce() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await signUp(app, "ada", email: "ada@example.org")
        #expect(await ada.get("/profile/edit").text.contains("ada@example.org"), "pending, shown to its owner")
        let mail = try #require(await app.deliverMail().first)
        #expect(mail.to.text == "ada@example.org" && mail.subject.contains("Confirm"))
        #expect(mail.text.contains("Hello ada"))
        let link = try Self.link("/email/verify", in: mail)
        // A mail scanner opening the link changes nothing: the page has one button.
        var scanner = app.browser()
        let page = await scanner.get(link)
        #expect(page.status == .ok && page.headers["Cache-Control"] == "no-store")
        #expect(page.headers["ETag"] == nil, "a page carrying a live token is kept nowhere, so it has no tag")
        #expect(page.text.contains("Confirm my address"))
        #expect(try await app.mailStorage.addresses(of: UserID(1)).verified == nil)
        var stranger = app.browser()
        let confirmed = try await stranger.submit("/email/verify", ["token": Self.token(in: link)], formPage: link)
        #expect(confirmed.status == .seeOther)
        #expect(try await app.mailStorage.addresses(of: UserID(1)) == EmailAddresses(verified: "ada@example.org"))
        let again = try await stranger.submit("/email/verify", ["token": Self.token(in: link)], formPage: "/password/forgot")
        #expect(again.status == .gone && again.text.contains("no longer valid"))
        #expect(await scanner.get(link).status == .gone)
        #expect(await ada.get("/profile/edit").text.contains("verified"))
    }

    @Test func changingTheAddressNeedsThePasswordKeepsTheOldOneUntilVerifiedAndTellsIt() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await signUpVerified(app, "ada", email: "ada@old.example")
        app.mailbox.clear()
        let wrong = try await ada.submit("/profile/email", ["email": "ada@new.example", "current_password": "not it at all"])
        #expect(wrong.status == .unprocessableContent && wrong.text.contains("not your current password"))
        #expect(await app.deliverMail().isEmpty)
        let changed = try await ada.submit("/profile/email", ["email": "ada@new.example", "current_password": TestApp.password])
        #expect(changed.status == .seeOther && changed.headers["Location"] == "/profile/edit")
        #expect(try await app.mailStorage.addresses(of: UserID(1)) == EmailAddresses(verified: "ada@old.example", pending: "ada@new.example"))
        let mails = await app.deliverMail()
        #expect(Set(mails.map(\.to.text)) == ["ada@new.example", "ada@old.example"])
        let notice = try #require(mails.first { $0.to.text == "ada@old.example" })
        #expect(notice.text.contains("Until it is confirmed") && !notice.text.contains("ada@new.example"))
        let link = try Self.link("/email/verify", in: try #require(mails.first { $0.to.text == "ada@new.example" }))
        _ = try await ada.submit("/email/verify", ["token": Self.token(in: link)], formPage: link)
        #expect(try await app.mailStorage.addresses(of: UserID(1)) == EmailAddresses(verified: "ada@new.example"))
    }

    @Test func aForgottenPasswordIsResetByLinkEndingEverySessionAndTheOwnerSignsInAnew() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await signUpVerified(app, "ada", email: "ada@example.org")
        app.mailbox.clear()
        var visitor = app.browser()
        let forgot = try await visitor.submit("/password/forgot", ["email": "ADA@example.org"], formPage: "/password/forgot")
        #expect(forgot.status == .ok && forgot.text.contains("on its way"))
        let mail = try #require(await app.deliverMail().first)
        #expect(mail.to.text == "ada@example.org", "to the address as verified")
        let link = try Self.link("/password/reset", in: mail)
        let form = await visitor.get(link)
        #expect(form.status == .ok && form.headers["Cache-Control"] == "no-store" && form.headers["ETag"] == nil)
        let short = try await visitor.submit(
            "/password/reset", ["token": Self.token(in: link), "password": "short", "password_confirmation": "short"], formPage: link)
        #expect(short.status == .unprocessableContent)
        let done = try await visitor.submit(
            "/password/reset",
            ["token": Self.token(in: link), "password": "a brand new password", "password_confirmation": "a brand new password"],
            formPage: link)
        #expect(done.status == .seeOther && done.headers["Location"] == "/login")
        #expect(await ada.get("/profile/edit").status == .seeOther, "the old session ended")
        let notice = try #require(await app.deliverMail().last)
        #expect(notice.to.text == "ada@example.org" && notice.subject.contains("password was changed"))
        var signIn = app.browser()
        let old = try await signIn.submit("/login", ["username": "ada", "password": TestApp.password])
        #expect(old.status == .unauthorized)
        let new = try await signIn.submit("/login", ["username": "ada", "password": "a brand new password"])
        #expect(new.status == .seeOther)
        let replayed = try await visitor.submit(
            "/password/reset", ["token": Self.token(in: link), "password": "another password!", "password_confirmation": "another password!"],
            formPage: "/password/forgot")
        #expect(replayed.status == .gone && replayed.text.contains("Ask for a new link"))
    }

    /// No enumeration by answer: an address nobody has gets the same status and page, and no mail.
    @Test func theForgotPageAnswersTheSameWhetherOrNotTheAddressIsAnyones() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        _ = try await signUpVerified(app, "ada", email: "ada@example.org")
        app.mailbox.clear()
        var visitor = app.browser()
        let known = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        let unknown = try await visitor.submit("/password/forgot", ["email": "nobody@example.org"], formPage: "/password/forgot")
        #expect(known.status == unknown.status)
        func withoutToken(_ text: String) -> String {
            text.replacingOccurrences(of: #"value="[^"]*""#, with: "", options: .regularExpression)
        }
        #expect(withoutToken(known.text) == withoutToken(unknown.text))
        #expect(await app.deliverMail().map(\.to.text) == ["ada@example.org"])
    }

    @Test func theForgotFormIsLimitedPerClientAndPerAddressTheSameForAddressesNobodyHas() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        _ = try await signUpVerified(app, "ada", email: "ada@example.org")
        func forgot(_ address: String, from client: String) async throws -> HTTPResponse {
            var browser = app.browser()
            let token = try await browser.csrfToken(from: "/password/forgot")
            var request = HTTPRequest.form("/password/forgot", ["email": address, "csrf_token": token])
            request.client = IPAddress(client)
            return await browser.send(request)
        }
        for address in ["ada@example.org", "nobody@example.org"] {
            for _ in 0..<3 { #expect(try await forgot(address, from: "192.0.2.1").status == .ok) }
            let fourth = try await forgot(address, from: "192.0.2.2")
            #expect(fourth.status == .tooManyRequests && fourth.headers["Retry-After"] != nil, "\(address): 3 an hour")
        }
        // Six counted from 192.0.2.1 so far, two from 192.0.2.2: four more from .1 reach its 10.
        for index in 0..<4 { #expect(try await forgot("other\(index)@example.org", from: "192.0.2.1").status == .ok) }
        #expect(try await forgot("fresh@example.org", from: "192.0.2.1").status == .tooManyRequests, "10 an hour per client")
        #expect(try await forgot("fresh@example.org", from: "192.0.2.3").status == .ok, "another client is not held back")
        // Ada's account had its verification mail this hour: two of its three asked-for resets
        // fit its allowance of three mails; the third is dropped unsent.
        #expect(await app.deliverMail().filter { $0.subject.contains("Reset") }.count == 2)
    }

    @Test func aDeadLinkIsGoneWithAWayToAskAgain() async throws {
        let clock = Clock()
        let app = try await TestApp(now: { clock.now })
        defer { Task { await app.close() } }
        var ada = try await signUpVerified(app, "ada", email: "ada@example.org")
        let verify = try await ada.submit("/profile/email", ["email": "ada@other.example", "current_password": TestApp.password])
        #expect(verify.status == .seeOther)
        let verifyLink = try Self.link("/email/verify", in: try #require(await app.deliverMail().last { $0.to.text == "ada@other.example" }))
        var visitor = app.browser()
        _ = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        let resetLink = try Self.link("/password/reset", in: try #require(await app.deliverMail().last))
        // A verification link is no reset link, and a reset link no verification link.
        #expect(await visitor.get("/password/reset?token=" + Self.token(in: verifyLink)).status == .gone)
        #expect(await visitor.get("/email/verify?token=" + Self.token(in: resetLink)).status == .gone)
        let dead = await visitor.get("/password/reset?token=" + String(repeating: "A", count: 43))
        #expect(dead.status == .gone && dead.text.contains("Ask for a new link") && dead.text.contains("/password/forgot"))
        #expect(await visitor.get("/password/reset?token=%0D%0ASet-Cookie:%20x").status == .gone)
        #expect(await visitor.get("/password/reset").status == .gone)
        #expect(await visitor.get(resetLink).status == .ok)
        clock.advance(30 * 60 + 1)
        #expect(await visitor.get(resetLink).status == .gone, "30 minutes")
        #expect(await visitor.get(verifyLink).status == .gone)
        // An hour after the first three mails the account's allowance has room again.
        clock.advance(30 * 60)
        app.mailbox.clear()
        _ = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        let first = try Self.link("/password/reset", in: try #require(await app.deliverMail().last))
        _ = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        let second = try Self.link("/password/reset", in: try #require(await app.deliverMail().last))
        #expect(first != second)
        #expect(await visitor.get(first).status == .gone, "a newer link was sent")
        #expect(await visitor.get(second).status == .ok)
    }

    @Test func changingThePasswordKillsEveryLinkAndTellsTheVerifiedAddress() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await signUpVerified(app, "ada", email: "ada@example.org")
        app.mailbox.clear()
        var visitor = app.browser()
        _ = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        let link = try Self.link("/password/reset", in: try #require(await app.deliverMail().last))
        let changed = try await ada.submit(
            "/profile/password",
            ["current_password": TestApp.password, "password": "changed on purpose", "password_confirmation": "changed on purpose"])
        #expect(changed.status == .seeOther)
        #expect(await visitor.get(link).status == .gone)
        #expect(await app.deliverMail().last?.subject.contains("password was changed") == true)
    }

    @Test func hostileAddressesAreRefusedAndNothingIsQueued() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await app.signedIn("ada")
        for hostile in ["ada@example.org\r\nBcc: eve@evil.example", "ada@evil.example@example.org", "ada example.org", String(repeating: "a", count: 250) + "@x.example", "<script>@x.example"] {
            let response = try await ada.submit("/profile/email", ["email": hostile, "current_password": TestApp.password])
            #expect(response.status == .unprocessableContent, "\(hostile.prefix(40))")
            #expect(!response.text.contains("<script>"))
            var visitor = app.browser()
            let forgot = try await visitor.submit("/password/forgot", ["email": hostile], formPage: "/password/forgot")
            #expect(forgot.status == .unprocessableContent)
        }
        // The page names the rule broken: a local part over 64 characters is too long, not badly spelled.
        let long = try await ada.submit("/profile/email", ["email": String(repeating: "a", count: 65) + "@example.com", "current_password": TestApp.password])
        #expect(long.status == .unprocessableContent && long.text.contains("has at most 64 characters") && !long.text.contains("such as spaces"))
        var eve = app.browser()
        let signUp = try await eve.submit(
            "/signup", ["username": "eve", "display_name": "Eve", "password": TestApp.password, "password_confirmation": TestApp.password,
                        "email": "eve@x.example\nBcc: all@x.example"])
        #expect(signUp.status == .unprocessableContent)
        #expect(app.store.state.user(named: Username("eve")!) == nil)
        #expect(await app.deliverMail().isEmpty)
        // Without the CSRF token nothing happens.
        #expect(await ada.post("/profile/email", ["email": "ada@example.org", "current_password": TestApp.password]).status == .forbidden)
        var stranger = app.browser()
        #expect(await stranger.post("/password/forgot", ["email": "ada@example.org"]).status == .forbidden)
    }

    @Test func anAddressIsShownToItsOwnerOnlyIsExportedAndIsErasedWithTheAccount() async throws {
        let app = try await TestApp()
        defer { Task { await app.close() } }
        var ada = try await signUpVerified(app, "ada", email: "ada@example.org")
        var bob = try await app.signedIn("bob")
        for path in ["/users/ada", "/", "/quotes", "/profile/edit", "/profile/email"] {
            let page = await bob.get(path).text
            #expect(!page.contains("ada@example.org"), "\(path)")
        }
        #expect(await ada.get("/profile/email").text.contains("ada@example.org"))
        let export = try #require(JSONSerialization.jsonObject(with: Data(await ada.get("/profile/export").body)) as? [String: Any])
        let profile = try #require(export["profile"] as? [String: Any])
        #expect(profile["email"] as? String == "ada@example.org" && profile["pending_email"] is NSNull)
        let deleted = try await ada.submit("/profile/delete", ["password": TestApp.password])
        #expect(deleted.status == .seeOther)
        #expect(try await app.mailStorage.addresses(of: UserID(1)) == EmailAddresses())
        var visitor = app.browser()
        _ = try await visitor.submit("/password/forgot", ["email": "ada@example.org"], formPage: "/password/forgot")
        app.mailbox.clear()
        #expect(await app.deliverMail().isEmpty, "no account has the address now")
    }

    @Test func aRelayDownIsRetriedWithGrowingPausesAndARefusalIsGivenUp() async throws {
        let clock = Clock()
        let app = try await TestApp(now: { clock.now }, metrics: true)
        defer { Task { await app.close() } }
        app.mailbox.fail(with: .temporary("connection refused"))
        _ = try await signUp(app, "ada", email: "ada@example.org")
        #expect(await app.deliverMail().isEmpty)
        #expect(app.metrics?.mail.value(.retried) == 1)
        clock.advance(29)
        #expect(await app.deliverMail().isEmpty && app.metrics?.mail.value(.retried) == 1, "waits its pause")
        clock.advance(2)
        #expect(await app.deliverMail().isEmpty && app.metrics?.mail.value(.retried) == 2)
        clock.advance(59)
        let waiting = await app.deliverMail()
        #expect(waiting.isEmpty && app.metrics?.mail.value(.retried) == 2)
        app.mailbox.fail(with: nil)
        clock.advance(2)
        #expect(await app.deliverMail().count == 1, "delivered once the relay is back")
        #expect(app.metrics?.mail.value(.sent) == 1)
        // A relay's refusal that repeats the recipient: given up, and the address kept out of the log.
        app.mailbox.fail(with: .permanent("550 5.1.1 <bob@example.org>: Recipient address rejected"))
        _ = try await signUp(app, "bob", email: "bob@example.org")
        await app.deliverMail()
        #expect(app.metrics?.mail.value(.failed) == 1)
        let log = app.logSink.entries.map(\.message).joined(separator: "\n")
        #expect(log.contains("Recipient address rejected") && !log.contains("bob@example.org"))
        app.mailbox.fail(with: nil)
        clock.advance(86_400)
        #expect(await app.deliverMail().count == 1, "given up, never sent")
        // A link's mail still failing when its link dies is given up: it would only lead to a 410.
        app.mailbox.fail(with: .temporary("connection refused"))
        _ = try await signUp(app, "cyd", email: "cyd@example.org")
        await app.deliverMail()
        app.mailbox.fail(with: nil)
        clock.advance(30 * 60 + 1)
        #expect(await app.deliverMail().count == 1, "not sent with a dead link")
        #expect(app.metrics?.mail.value(.failed) == 2)
    }
}

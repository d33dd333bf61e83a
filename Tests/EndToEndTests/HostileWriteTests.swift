import App
import Basics
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Writes to the book per account and per client address (``WriteLimits``), over real sockets,
/// each client named by a trusted proxy's `X-Forwarded-For` (``AddressLimitTests/serve(_:)``).
/// Without the limit one signed-in client added 4,300 quotes a second.
@Suite struct HostileWriteTests {
    static let vandal = "198.51.100.9"
    static let elsewhere = "192.0.2.40"

    static func limits(perAccount: Int, perClient: Int) -> WriteLimits {
        var limits = WriteLimits()
        limits.perAccount = perAccount
        limits.perClient = perClient
        return limits
    }

    static func signedUp(_ live: LiveServer, _ name: String, from address: String) async throws -> SocketBrowser {
        var browser = AddressLimitTests.browser(live, from: address)
        #expect(try await browser.signUp(name).status == 303)
        return browser
    }

    static func addQuote(_ browser: inout SocketBrowser, _ text: String) async throws -> ClientResponse {
        try await browser.submit("/quotes", [("text", text), ("author", "Someone")], formPage: "/quotes/new")
    }

    static func quoteCount(_ app: TestApp) -> Int { app.store.state.quotes.count }

    @Test func anAccountPastItsWritesGets429AndNothingChanges() async throws {
        let app = try await TestApp(writeLimits: Self.limits(perAccount: 3, perClient: 100))
        let live = try AddressLimitTests.serve(app)
        var vandal = try await Self.signedUp(live, "vandal", from: Self.vandal)
        for number in 1...3 { #expect(try await Self.addQuote(&vandal, "Quote \(number)").status == 303) }
        let before = Self.quoteCount(app)
        let refused = try await Self.addQuote(&vandal, "One too many")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "600")
        #expect(refused.text.hasPrefix("<!doctype html>"))
        #expect(refused.text.contains("nothing was changed this time. Please try again in 10 minutes."))
        #expect(Self.quoteCount(app) == before)
        // Every write counts alike: a favourite, a rename, removing a photo.
        #expect(try await vandal.submit("/quotes/1/favorite", [], formPage: "/quotes/1").status == 429)
        #expect(try await vandal.submit("/profile/name", [("display_name", "Renamed")], formPage: "/profile/edit").status == 429)
        #expect(try await vandal.submit("/profile/photo/delete", [], formPage: "/profile/edit").status == 429)
        // A password change is never held back by writes: securing an account always works.
        let passwordChange = try await vandal.submit(
            "/profile/password",
            [("current_password", TestApp.password), ("password", "a new password"), ("password_confirmation", "a new password")],
            formPage: "/profile/password")
        #expect(passwordChange.status == 303)
        #expect(app.store.state.user(named: try #require(Username("vandal")))?.displayName == "vandal")
        // Reading, reporting and signing out are not writes.
        #expect(try await vandal.get("/quotes").status == 200)
        #expect(try await vandal.submit("/quotes/1/report", [("reason", "Looks wrong")], formPage: "/quotes/1").status == 303)
        #expect(try await vandal.submit("/logout", [], formPage: "/").status == 303)

        // Someone else, elsewhere, writes as before.
        var other = try await Self.signedUp(live, "other", from: Self.elsewhere)
        #expect(try await Self.addQuote(&other, "Mine").status == 303)
        #expect(Self.quoteCount(app) == before + 1)
        await live.stop()
    }

    @Test func anAddressPastItsWritesGets429WhateverTheAccount() async throws {
        let app = try await TestApp(writeLimits: Self.limits(perAccount: 5, perClient: 4))
        let live = try AddressLimitTests.serve(app)
        var first = try await Self.signedUp(live, "first", from: Self.vandal)
        var second = try await Self.signedUp(live, "second", from: Self.vandal)
        for number in 1...2 {
            #expect(try await Self.addQuote(&first, "First \(number)").status == 303)
            #expect(try await Self.addQuote(&second, "Second \(number)").status == 303)
        }
        let refused = try await Self.addQuote(&first, "Third from the address")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "600")

        // The refusal by the address gave the account's count back: from another address the
        // first account still has its 5 - 2 = 3 writes, and no more.
        first.extraHeaders = [("X-Forwarded-For", Self.elsewhere)]
        for number in 3...5 { #expect(try await Self.addQuote(&first, "First \(number)").status == 303) }
        #expect(try await Self.addQuote(&first, "First 6").status == 429)
        await live.stop()
    }

    /// A form without its token is refused (403) before it could count, so a page elsewhere
    /// cannot spend someone's allowance by making their browser post.
    @Test func aFormWithoutItsTokenSpendsNothing() async throws {
        let app = try await TestApp(writeLimits: Self.limits(perAccount: 2, perClient: 100))
        let live = try AddressLimitTests.serve(app)
        var person = try await Self.signedUp(live, "person", from: Self.vandal)
        _ = try await person.get("/quotes/new")
        for _ in 1...5 {
            let forged = try await person.send(
                "POST", "/quotes", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("text=Forged&author=Nobody&csrf_token=wrong".utf8))
            #expect(forged.status == 403)
        }
        for number in 1...2 { #expect(try await Self.addQuote(&person, "Real \(number)").status == 303) }
        #expect(try await Self.addQuote(&person, "Real 3").status == 429)
        await live.stop()
    }

    /// 40 of one account's writes at once, on connections of their own, each from an address
    /// of its own: exactly the account's 6 are taken, the rest refused, and 6 quotes exist.
    /// Then 40 at once from one address, by four accounts: exactly the address's 8.
    @Test func manyWritesAtOnceGetNoMoreThanTheLimit() async throws {
        let app = try await TestApp(writeLimits: Self.limits(perAccount: 6, perClient: 8))
        let live = try AddressLimitTests.serve(app)
        var vandal = try await Self.signedUp(live, "vandal", from: Self.vandal)
        let token = try await vandal.csrfToken(from: "/quotes/new")
        let before = Self.quoteCount(app)
        let burst = (1...40).map { index in
            vandal.extraHeaders = [("X-Forwarded-For", "198.51.100.\(100 + index)")]
            return vandal.preparedPost("/quotes", [("text", "Burst \(index)"), ("author", "V")], token: token)
        }
        let statuses = try await SocketClient.statusesAtOnce(port: live.port, burst)
        #expect(statuses.filter { $0 == 303 }.count == 6)
        #expect(statuses.filter { $0 == 429 }.count == 34)
        #expect(Self.quoteCount(app) == before + 6)

        var posts: [[UInt8]] = []
        for name in ["ann", "ben", "cat", "dot"] {
            var browser = try await Self.signedUp(live, name, from: "203.0.113.77")
            let token = try await browser.csrfToken(from: "/quotes/new")
            for index in 1...10 { posts.append(browser.preparedPost("/quotes", [("text", "\(name) \(index)"), ("author", "N")], token: token)) }
        }
        let shared = try await SocketClient.statusesAtOnce(port: live.port, posts)
        #expect(shared.filter { $0 == 303 }.count == 8)
        #expect(shared.filter { $0 == 429 }.count == 32)
        #expect(Self.quoteCount(app) == before + 14)
        await live.stop()
    }
    /// Writes of many bytes count once for each 4 KiB they could keep, all at once or not at
    /// all: 40 quotes at once of 1,000 characters of 13 bytes each (4 writes apiece), against an
    /// allowance of 22, keep exactly 5, and the book holds exactly those; two light ones fit after.
    @Test func heavyWritesAtOnceKeepNoMoreThanTheirWeight() async throws {
        let app = try await TestApp(writeLimits: Self.limits(perAccount: 22, perClient: 1_000))
        let live = try AddressLimitTests.serve(app)
        var vandal = try await Self.signedUp(live, "heavy", from: Self.vandal)
        let token = try await vandal.csrfToken(from: "/quotes/new")
        let before = Self.quoteCount(app)
        let character = "e" + String(repeating: "\u{301}", count: 6)
        let burst = (1...40).map { index in
            vandal.extraHeaders = [("X-Forwarded-For", "198.51.100.\(100 + index)")]
            let text = String(repeating: character, count: 996) + String(format: "%04d", index)
            return vandal.preparedPost("/quotes", [("text", text), ("author", "V")], token: token)
        }
        let statuses = try await SocketClient.statusesAtOnce(port: live.port, burst)
        #expect(statuses.filter { $0 == 303 }.count == 5)
        #expect(statuses.filter { $0 == 429 }.count == 35)
        #expect(Self.quoteCount(app) == before + 5)
        // The refused ones took nothing: light writes fill the rest exactly.
        let light = (1...30).map { vandal.preparedPost("/quotes", [("text", "Light \($0)"), ("author", "V")], token: token) }
        let after = try await SocketClient.statusesAtOnce(port: live.port, light)
        #expect(after.filter { $0 == 303 }.count == 2)
        #expect(Self.quoteCount(app) == before + 7)
        await live.stop()
    }
}

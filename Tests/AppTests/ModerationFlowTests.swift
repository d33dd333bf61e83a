import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Reports and moderation through the coordinator tree as browsers drive them (SPEC.md
/// "Moderation", issue 31), on the run's backend.
@Suite struct ModerationFlowTests {
    /// An app where Ada is a member, Mo a moderator (given by the operator's action), and Ada has
    /// added a quote (id 2).
    func book() async throws -> (app: TestApp, ada: TestBrowser, mod: TestBrowser) {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        let mod = try await app.signedIn("moe")
        let moe = try #require(app.store.state.user(named: Username("moe")!))
        #expect(try await app.store.dispatch(.setRole(moe.id, .moderator, at: TestApp.fixedNow)) == .success(.roleChanged(moe.id)))
        #expect(try await ada.submit("/quotes", ["text": "Buy cheap pills at example.com", "author": "Spammer"], formPage: "/quotes/new").status == .seeOther)
        return (app, ada, mod)
    }

    @Test func aMemberReportsAQuoteOnceAndIsThanked() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        defer { Task { await app.close() } }
        let reported = try await ada.submit("/quotes/2/report", ["reason": "Spam <script>alert(1)</script>"], formPage: "/quotes/2")
        // SPEC: 303 to the quote's own address; the thanks travel in a cookie read once.
        #expect(reported.status == .seeOther && reported.headers["Location"] == "/quotes/2")
        let thanks = await ada.get("/quotes/2")
        #expect(thanks.status == .ok && thanks.text.contains("Thank you"))
        let reloaded = await ada.get("/quotes/2")
        #expect(reloaded.status == .ok && !reloaded.text.contains("Thank you"), "shown once")
        let again = try await ada.submit("/quotes/2/report", ["reason": "Still spam"], formPage: "/quotes/2")
        #expect(again.status == .seeOther && again.headers["Location"] == "/quotes/2")
        #expect(await ada.get("/quotes/2").text.contains("Thank you"), "a report already open is thanked too")
        #expect(app.store.state.moderation.reports.count == 1, "one open report a person and quote")
        let huge = try await ada.submit("/quotes/1/report", ["reason": String(repeating: "x", count: 10_000)], formPage: "/quotes/1")
        #expect(huge.status == .unprocessableContent && huge.text.contains("the reason"))
        #expect(await ada.post("/quotes/1/report", ["reason": "no token"]).status == .forbidden)
        var stranger = app.browser()
        #expect(await stranger.post("/quotes/1/report", ["reason": "signed out"]).status == .forbidden)
        #expect(app.store.state.moderation.reports.count == 1)
    }

    /// A notice cookie shows only on the page it names, to a signed-in visitor, and only a GET of
    /// that page uses it up: one made up, damaged or huge shows nothing and is deleted; one for
    /// another quote shows nothing there and stays for its own page, as it does through other
    /// requests meanwhile (a stylesheet, the list).
    @Test func aNoticeCookieShowsOnlyOnItsOwnPage() async throws {
        let made = try await book()
        let app = made.app
        let ada = made.ada
        defer { Task { await app.close() } }
        func get(_ target: String, notice: String, signedIn: Bool = true) async -> HTTPResponse {
            let cookies = (signedIn ? ada.cookieHeader + "; " : "") + "quotebook_notice=" + notice
            return await app.respond(HTTPRequest(method: .get, target: target, headers: ["Host": "test", "Cookie": cookies]))
        }
        func deletesNotice(_ response: HTTPResponse) -> Bool {
            response.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("quotebook_notice=;") && $0.contains("Max-Age=0") }
        }
        let damaged = [
            "reported-01", "reported-", "reported--2", "reported-2x", "reported-99999999999999999999", "thanks",
            "reported-" + String(repeating: "9", count: 4_000), "%72eported-2",
        ]
        for value in damaged {
            let page = await get("/quotes/2", notice: value)
            #expect(page.status == .ok && !page.text.contains("Thank you"), "\(value.prefix(40))")
            #expect(deletesNotice(page), "\(value.prefix(40))")
        }
        let otherQuote = await get("/quotes/2", notice: "reported-1")
        #expect(otherQuote.status == .ok && !otherQuote.text.contains("Thank you") && !deletesNotice(otherQuote))
        for target in ["/site.css", "/quotes", "/quotes/2/history"] {
            #expect(!deletesNotice(await get(target, notice: "reported-2")), "\(target) leaves the notice for its page")
        }
        let signedOut = await get("/quotes/2", notice: "reported-2", signedIn: false)
        #expect(signedOut.status == .ok && !signedOut.text.contains("Thank you"))
        let own = await get("/quotes/2", notice: "reported-2")
        #expect(own.status == .ok && own.text.contains("Thank you") && deletesNotice(own), "its own page shows it and uses it up")
    }

    /// The page tag takes the notice in: a report already open changes no state, yet the page
    /// the browser revalidates after it is the one with the thanks, not a 304 of the one before.
    @Test func aNoticeIsNeverHiddenByA304() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        defer { Task { await app.close() } }
        #expect(try await ada.submit("/quotes/2/report", ["reason": "Spam"], formPage: "/quotes/2").status == .seeOther)
        _ = await ada.get("/quotes/2")
        let plain = await ada.get("/quotes/2")
        let tag = try #require(plain.headers["ETag"])
        #expect(!plain.text.contains("Thank you"))
        #expect(try await ada.submit("/quotes/2/report", ["reason": "Spam again"], formPage: "/quotes/2").status == .seeOther)
        let thanked = await ada.get("/quotes/2", headers: ["If-None-Match": tag])
        #expect(thanked.status == .ok && thanked.text.contains("Thank you"))
        #expect(await ada.get("/quotes/2", headers: ["If-None-Match": tag]).status == .notModified, "then the page as before")
    }

    /// The moderators' queue is tagged from its bytes: the same queue revalidates as a 304, a
    /// new report shows.
    @Test func theQueueRevalidatesByItsContent() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        var mod = made.mod
        defer { Task { await app.close() } }
        let queue = await mod.get("/moderation")
        let tag = try #require(queue.headers["ETag"])
        #expect(await mod.get("/moderation", headers: ["If-None-Match": tag]).status == .notModified)
        #expect(try await ada.submit("/quotes/2/report", ["reason": "Selling pills"], formPage: "/quotes/2").status == .seeOther)
        let fresh = await mod.get("/moderation", headers: ["If-None-Match": tag])
        #expect(fresh.status == .ok && fresh.text.contains("Selling pills"))
    }

    @Test func reportsAreLimitedToTenAnHourAPerson() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        defer { Task { await app.close() } }
        for index in 0..<9 {
            #expect(try await ada.submit("/quotes", ["text": "Quote \(index)", "author": "A"], formPage: "/quotes/new").status == .seeOther)
        }
        var statuses: [HTTPStatus] = []
        for id in 1...11 { statuses.append(try await ada.submit("/quotes/\(id)/report", ["reason": "bad"], formPage: "/quotes/\(id)").status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == .seeOther })
        #expect(statuses.last == .tooManyRequests)
    }

    /// Pages are rendered from skeletons shared by visitors: a member's and a moderator's
    /// navigation never take each other's, whichever comes first.
    @Test func theModerationLinkFollowsTheVisitorOnSharedPages() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        for path in ["/", "/quotes", "/quotes/2", "/users/ada"] {
            #expect(!(await ada.get(path).text.contains(">Moderation<")), "\(path), a member first")
            #expect(await mod.get(path).text.contains(">Moderation<"), "\(path), then a moderator")
            #expect(!(await ada.get(path).text.contains(">Moderation<")), "\(path), a member again")
        }
    }

    /// Twenty reports sent at once by one person, of twenty quotes: ten are taken.
    @Test func reportsSentAtOnceStillStopAtTen() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        defer { Task { await app.close() } }
        for index in 0..<19 {
            #expect(try await ada.submit("/quotes", ["text": "Quote \(index)", "author": "A"], formPage: "/quotes/new").status == .seeOther)
        }
        let token = try await ada.csrfToken(from: "/quotes/1")
        let cookie = ada.cookieHeader
        let statuses = await withTaskGroup(of: HTTPStatus.self) { group in
            for id in 1...21 {
                group.addTask {
                    var request = HTTPRequest.form("/quotes/\(id)/report", ["reason": "bad", "csrf_token": token])
                    request.headers.add(name: "Cookie", value: cookie)
                    return await app.respond(request).status
                }
            }
            return await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .seeOther }.count == 10, "\(statuses)")
        #expect(statuses.filter { $0 == .tooManyRequests }.count == 11)
        #expect(app.store.state.moderation.reports.count == 10)
    }

    @Test func membersMeetTheForbiddenPageOnEveryModerationRoute() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada
        defer { Task { await app.close() } }
        _ = try await ada.submit("/quotes/2/report", ["reason": "spam"], formPage: "/quotes/2")
        #expect(await ada.get("/moderation").status == .forbidden)
        #expect(await ada.get("/moderation/log").status == .forbidden)
        for target in ["/quotes/2/hide", "/quotes/2/unhide", "/moderation/reports/1/dismiss"] {
            #expect(try await ada.submit(target, ["reason": "I say so"], formPage: "/").status == .forbidden, "\(target)")
        }
        #expect(app.store.state.quotes[QuoteID(2)] != nil && app.store.state.moderation.reports.count == 1)
        #expect(!(await ada.get("/").text.contains(">Moderation<")), "no link for members")
        var visitor = app.browser()
        let signedOut = await visitor.get("/moderation")
        #expect(signedOut.status == .seeOther && signedOut.headers["Location"]?.hasPrefix("/login") == true)
    }

    @Test func aModeratorHidesAReportedQuoteFromEveryoneAndBringsItBack() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        _ = try await ada.submit("/quotes/2/report", ["reason": "Spam <b>bold</b>"], formPage: "/quotes/2")
        #expect(await mod.get("/").text.contains(">Moderation<"), "a link for moderators")
        let queue = await mod.get("/moderation")
        #expect(queue.status == .ok && queue.text.contains("Buy cheap pills") && queue.text.contains("Spam &lt;b&gt;bold&lt;/b&gt;"))
        let empty = try await mod.submit("/quotes/2/hide", ["reason": " "], formPage: "/moderation")
        #expect(empty.status == .unprocessableContent)
        let hidden = try await mod.submit("/quotes/2/hide", ["reason": "Spam"], formPage: "/moderation")
        #expect(hidden.status == .seeOther && hidden.headers["Location"] == "/moderation")
        var visitor = app.browser()
        for (path, text) in [("/", "Buy cheap pills"), ("/quotes", "Buy cheap pills"), ("/quotes?q=pills", "Buy cheap pills"), ("/users/ada", "Buy cheap pills")] {
            let page = await visitor.get(path)
            #expect(!page.text.contains(text), "\(path) still shows it")
        }
        #expect(await visitor.get("/quotes/2").status == .notFound)
        #expect(await ada.get("/quotes/2/history").status == .notFound)
        #expect(app.store.state.moderation.reports.isEmpty, "its report closed")
        #expect(await mod.get("/moderation").text.contains("Hidden"))
        let back = try await mod.submit("/quotes/2/unhide", ["reason": "A false alarm"], formPage: "/moderation")
        #expect(back.status == .seeOther)
        #expect(await visitor.get("/quotes/2").status == .ok)
        let log = await mod.get("/moderation/log")
        #expect(log.status == .ok && log.text.contains("hid quote 2") && log.text.contains("brought back quote 2") && log.text.contains("A false alarm"))
    }

    /// Open pages drop it live: a quote's event stream says it is gone when it is hidden.
    @Test func openPagesOfAHiddenQuoteAreToldItIsGone() async throws {
        let made = try await book()
        let app = made.app
        var mod = made.mod
        defer { Task { await app.close() } }
        let feed = QuoteFeed(store: app.store, heartbeatInterval: .seconds(60))
        app.store.observe { feed.publish($0) }
        var messages = feed.listen(to: QuoteID(2), lastSeenVersion: 1).makeAsyncIterator()
        #expect(try await mod.submit("/quotes/2/hide", ["reason": "Spam"], formPage: "/moderation").status == .seeOther)
        #expect(await messages.next() == .deleted(QuoteID(2)))
        #expect(await messages.next() == nil, "the stream ends")
    }

    @Test func aDismissedReportLeavesTheQueue() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        _ = try await ada.submit("/quotes/2/report", ["reason": "Not my taste"], formPage: "/quotes/2")
        #expect(try await mod.submit("/moderation/reports/1/dismiss", [:], formPage: "/moderation").status == .seeOther)
        #expect(!(await mod.get("/moderation").text.contains("Not my taste")))
        #expect(try await mod.submit("/moderation/reports/1/dismiss", [:], formPage: "/moderation").status == .notFound, "already closed")
        #expect(app.store.state.quotes[QuoteID(2)] != nil)
    }

    /// A moderator sees a hidden quote's page, marked hidden with the reason and a way back, and
    /// its history; a member gets 404 for both.
    @Test func moderatorsSeeAHiddenQuoteMarkedWithTheReason() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        #expect(try await mod.submit("/quotes/2/hide", ["reason": "An advert <i>here</i>"], formPage: "/moderation").status == .seeOther)
        let page = await mod.get("/quotes/2")
        #expect(page.status == .ok && page.text.contains("Buy cheap pills") && page.text.contains("Hidden from everyone but moderators"))
        #expect(page.text.contains("An advert &lt;i&gt;here&lt;/i&gt;") && page.text.contains("action=\"/quotes/2/unhide\""))
        #expect(!page.text.contains("action=\"/quotes/2/favourite\""), "no member actions on a hidden quote")
        let history = await mod.get("/quotes/2/history")
        #expect(history.status == .ok && history.text.contains("Buy cheap pills") && !history.text.contains("Restore"))
        #expect(await ada.get("/quotes/2").status == .notFound)
        #expect(await ada.get("/quotes/2/history").status == .notFound)
        #expect(try await mod.submit("/quotes/2/unhide", ["reason": "Fine after all"], formPage: "/quotes/2").status == .seeOther)
        #expect(await ada.get("/quotes/2").status == .ok)
    }

    /// Suspending ends every session of the person at once, their sign-in answers 403 saying
    /// so, their profile says so to everyone and their quotes stay; lifting it lets them in again.
    @Test func aSuspensionEndsTheSessionsAndRefusesTheSignIn() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        var adaElsewhere = app.browser()
        #expect(try await adaElsewhere.submit("/login", ["username": "ada", "password": TestApp.password]).status == .seeOther)
        let profile = await mod.get("/users/ada")
        #expect(profile.text.contains("action=\"/users/ada/suspend\"") && profile.text.contains("action=\"/users/ada/revert\""))
        #expect(!(await ada.get("/users/moe").text.contains("/suspend\"")), "members see no moderation forms")
        #expect(!(await mod.get("/users/moe").text.contains("/suspend\"")), "nor moderators on a moderator")

        let empty = try await mod.submit("/users/ada/suspend", ["reason": ""], formPage: "/users/ada")
        #expect(empty.status == .unprocessableContent && empty.text.contains("action=\"/users/ada/suspend\""))
        let huge = try await mod.submit("/users/ada/suspend", ["reason": String(repeating: "x", count: 10_000)], formPage: "/users/ada")
        #expect(huge.status == .unprocessableContent)
        #expect(app.store.state.moderation.suspended.isEmpty)
        let suspended = try await mod.submit("/users/ada/suspend", ["reason": "Spamming <b>pills</b>"], formPage: "/users/ada")
        #expect(suspended.status == .seeOther && suspended.headers["Location"] == "/users/ada")
        let again = try await mod.submit("/users/ada/suspend", ["reason": "Twice"], formPage: "/users/ada")
        #expect(again.status == .seeOther, "a second click is done too")
        #expect(app.store.state.moderation.log.filter { $0.kind == .suspended }.count == 1)

        for browser in [ada, adaElsewhere] {
            var browser = browser
            let home = await browser.get("/quotes/new")
            #expect(home.status == .seeOther && home.headers["Location"]?.hasPrefix("/login") == true, "the session ended")
        }
        var fresh = app.browser()
        let refused = try await fresh.submit("/login", ["username": "ada", "password": TestApp.password], formPage: "/login")
        #expect(refused.status == .forbidden && refused.text.contains("suspended") && refused.text.contains("Spamming &lt;b&gt;pills&lt;/b&gt;"))
        #expect(!fresh.cookieHeader.contains("quotebook_session"), "no session")
        let wrong = try await fresh.submit("/login", ["username": "ada", "password": "not the password"], formPage: "/login")
        #expect(wrong.status == .unauthorized && !wrong.text.contains("suspended"), "only the password's owner is told")
        var visitor = app.browser()
        let seen = await visitor.get("/users/ada")
        #expect(seen.text.contains("This account is suspended") && seen.text.contains("Buy cheap pills"), "the quotes stay")
        #expect(!seen.text.contains("Spamming"), "the reason is the moderators' and the person's")
        #expect(await visitor.get("/quotes/2").status == .ok)

        #expect(try await mod.submit("/users/ada/unsuspend", ["reason": "Served their time"], formPage: "/users/ada").status == .seeOther)
        #expect(try await fresh.submit("/login", ["username": "ada", "password": TestApp.password], formPage: "/login").status == .seeOther)
        #expect(!(await visitor.get("/users/ada").text.contains("This account is suspended")))
        let log = await mod.get("/moderation/log")
        #expect(log.text.contains("suspended Ada (ada)") && log.text.contains("lifted the suspension of Ada (ada)"))
    }

    /// A revert through the page: the quotes they defaced go back to the newest version someone
    /// else made, by the moderator; the one only they wrote is hidden; open pages hear of both.
    @Test func aModeratorRevertsAPersonsEdits() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        var vandal = try await app.signedIn("vandal")
        for id in [1, 2] {
            let form = await vandal.get("/quotes/\(id)/edit")
            let version = try #require(form.text.firstMatch(of: /name="version" value="(\d+)"/)?.1)
            #expect(try await vandal.submit("/quotes/\(id)", ["text": "Defaced \(id)", "author": "V", "version": String(version)], formPage: "/quotes/\(id)/edit").status == .seeOther)
        }
        #expect(try await vandal.submit("/quotes", ["text": "Only the vandal's", "author": "V"], formPage: "/quotes/new").status == .seeOther)
        let feed = QuoteFeed(store: app.store, heartbeatInterval: .seconds(60))
        app.store.observe { feed.publish($0) }
        var open = feed.listen(to: QuoteID(1), lastSeenVersion: 2).makeAsyncIterator()
        let seed = try #require(app.store.state.quotes[QuoteID(1)])
        let before = try await app.store.history(of: QuoteID(1)).first

        #expect(try await ada.submit("/users/vandal/revert", ["reason": "no"], formPage: "/").status == .forbidden, "members cannot")
        let reverted = try await mod.submit("/users/vandal/revert", ["reason": "Vandalism"], formPage: "/users/vandal")
        #expect(reverted.status == .seeOther && reverted.headers["Location"] == "/users/vandal")
        let state = app.store.state
        #expect(state.quotes[QuoteID(1)]?.text == before?.text && state.quotes[QuoteID(1)]?.version == seed.version + 1)
        #expect(state.quotes[QuoteID(2)]?.text == "Buy cheap pills at example.com", "back to Ada's")
        #expect(state.quotes[QuoteID(2)]?.updatedBy == state.user(named: Username("moe")!)?.id)
        #expect(state.quotes[QuoteID(3)] == nil && state.moderation.hidden[QuoteID(3)] != nil, "only theirs: hidden")
        if case .changed(let quote, _) = await open.next() { #expect(quote.text == before?.text) } else { Issue.record("no live change") }
        let history = await mod.get("/quotes/2/history")
        #expect(history.text.contains("Defaced 2") && history.text.contains("Buy cheap pills"))
        let log = await mod.get("/moderation/log")
        #expect(log.text.contains("reverted the edits of Vandal (vandal): 2 quotes taken back, 1 hidden"))
        // The hidden quote is still theirs: their export holds it, marked hidden.
        let export = await vandal.get("/profile/export")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(export.text.utf8)) as? [String: Any])
        let added = try #require(document["quotes"] as? [[String: Any]])
        #expect(added.map { $0["id"] as? Int } == [3] && added.first?["hidden"] as? Bool == true)
        let second = try await mod.submit("/users/vandal/revert", ["reason": "Again"], formPage: "/users/vandal")
        #expect(second.status == .seeOther && app.store.state.quotes[QuoteID(2)]?.version == state.quotes[QuoteID(2)]?.version, "nothing left to take back")
    }

    /// Moderators cannot suspend or revert moderators; a reason without its form's token changes
    /// nothing; a member is refused every one of the person routes.
    @Test func nobodyMayModerateAModeratorAndEveryFormNeedsItsToken() async throws {
        let made = try await book()
        let app = made.app
        var ada = made.ada, mod = made.mod
        defer { Task { await app.close() } }
        let max = try await app.signedIn("max")
        let maxID = try #require(app.store.state.user(named: Username("max")!)?.id)
        _ = try await app.store.dispatch(.setRole(maxID, .moderator, at: TestApp.fixedNow))
        _ = max
        for action in ["suspend", "revert"] {
            let refused = try await mod.submit("/users/max/\(action)", ["reason": "a moderator"], formPage: "/users/ada")
            #expect(refused.status == .forbidden && refused.text.contains("never to a moderator"), "\(action)")
            #expect(await mod.post("/users/ada/\(action)", ["reason": "no token"]).status == .forbidden)
            #expect(try await ada.submit("/users/max/\(action)", ["reason": "me"], formPage: "/").status == .forbidden)
        }
        #expect(try await ada.submit("/users/ada/unsuspend", ["reason": "me"], formPage: "/").status == .forbidden)
        #expect(try await mod.submit("/users/nobody/suspend", ["reason": "who"], formPage: "/users/ada").status == .notFound)
        #expect(app.store.state.moderation.suspended.isEmpty && app.store.state.moderation.log.count == 2, "only the two roles")
    }

    /// However many reports and hidden quotes there are, a moderator's page shows a bounded
    /// number of them, with links to the rest: 25 reported quotes make two pages; 12 reports of
    /// one quote show its newest 10; 15 hidden quotes show the newest 10 and a link to them all.
    @Test func theModeratorsPagesArePagedHoweverManyReportsThereAre() async throws {
        let made = try await book()
        let app = made.app
        var mod = made.mod
        defer { Task { await app.close() } }
        var dispatched: [AppAction] = []
        let at = TestApp.fixedNow
        for index in 0..<25 { dispatched.append(.addQuote(QuoteDraft(text: "Spam number \(index)", author: "S"), by: nil, at: at)) }
        for _ in 0..<12 { dispatched.append(.signUp(Username("r\(dispatched.count)")!, displayName: "Reporter", at: at)) }
        for action in dispatched { _ = try await app.store.dispatch(action).get() }
        let reporters = app.store.state.users.values.filter { $0.displayName == "Reporter" }.map(\.id)
        for (offset, reporter) in reporters.enumerated() {
            _ = try await app.store.dispatch(.reportQuote(QuoteID(3), by: reporter, reason: "Report \(offset)", at: at)).get()
        }
        for id in 4...27 { _ = try await app.store.dispatch(.reportQuote(QuoteID(id), by: reporters[0], reason: "spam", at: at)).get() }
        let first = await mod.get("/moderation")
        #expect(first.status == .ok && first.text.contains("Page 1 of 2") && first.text.contains("href=\"/moderation?page=2\""))
        #expect(first.text.components(separatedBy: "class=\"report-group\"").count - 1 == 20)
        let second = await mod.get("/moderation?page=2")
        #expect(second.status == .ok && second.text.contains("Page 2 of 2") && second.text.contains("12 reports (the newest shown; 2 more)"))
        #expect(!second.text.contains("Report 0<") && !second.text.contains("Report 1<") && second.text.contains("Report 11"))
        #expect(await mod.get("/moderation?page=3").status == .notFound)
        #expect(await mod.get("/moderation?page=0").status == .notFound)

        let moe = try #require(app.store.state.user(named: Username("moe")!)?.id)
        for id in 4...18 { _ = try await app.store.dispatch(.hideQuote(QuoteID(id), by: moe, reason: "hidden \(id)", at: at)).get() }
        let queue = await mod.get("/moderation")
        #expect(queue.text.contains("All 15 hidden quotes") && queue.text.contains("hidden 18") && !queue.text.contains("hidden 4<"))
        let all = await mod.get("/moderation/hidden")
        #expect(all.status == .ok && all.text.contains("hidden 4") && all.text.contains("hidden 18"))
        #expect(await mod.get("/moderation/hidden?page=2").status == .notFound)
        var ada = made.ada
        #expect(await ada.get("/moderation/hidden").status == .forbidden)
        let log = await mod.get("/moderation/log")
        #expect(log.status == .ok && log.text.contains("hid quote 18") && !log.text.contains("Page 1 of"), "17 lines: one page")
        #expect(log.text.contains("<ol class=\"moderation-log\">"))
        for _ in 0..<50 {
            _ = try await app.store.dispatch(.hideQuote(QuoteID(19), by: moe, reason: "again", at: at)).get()
            _ = try await app.store.dispatch(.unhideQuote(QuoteID(19), by: moe, reason: "again", at: at)).get()
        }
        let logFirst = await mod.get("/moderation/log")
        #expect(logFirst.text.contains("Page 1 of 2") && logFirst.text.contains("<ol class=\"moderation-log\">"))
        let logSecond = await mod.get("/moderation/log?page=2")
        #expect(logSecond.status == .ok && logSecond.text.contains("Page 2 of 2"))
        #expect(logSecond.text.contains("<ol class=\"moderation-log\" start=\"101\">"), "117 lines: page 2 counts on from 101")
    }
}

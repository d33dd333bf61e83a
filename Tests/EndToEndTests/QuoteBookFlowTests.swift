import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// Adding, deleting, history and restore through the coordinator tree, as a browser drives them.
@Suite struct QuoteBookFlowTests {
    /// The id in a `Location: /quotes/{id}` header.
    func quoteID(in response: HTTPResponse) throws -> QuoteID {
        let location = try #require(response.headers["Location"])
        let id = try #require(location.hasPrefix("/quotes/") ? Int(location.dropFirst("/quotes/".count)) : nil)
        return QuoteID(id)
    }

    @Test func addingAQuoteShowsItWithWhoAddedIt() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada", displayName: "Ada Lovelace")
        let form = await browser.get("/quotes/new")
        #expect(form.status == .ok)
        #expect(form.text.contains("<h1>Add a quote</h1>"))
        #expect(form.text.contains("action=\"/quotes\""))
        #expect(!form.text.contains("name=\"version\""))
        let added = try await browser.submit("/quotes", ["text": "  The <b>analytical</b> engine weaves.  ", "author": "Ada"])
        #expect(added.status == .seeOther)
        let id = try quoteID(in: added)
        #expect(id == QuoteID(2))
        let page = await browser.get("/quotes/\(id)")
        #expect(page.text.contains("The &lt;b&gt;analytical&lt;/b&gt; engine weaves."))
        #expect(page.text.contains("<a href=\"/users/ada\">Ada Lovelace</a>"))
        #expect(page.text.contains("action=\"/quotes/2/delete\""), "whoever added it is offered Delete")
        #expect(await app.get("/quotes").text.contains("engine weaves."))
        #expect(await app.get("/").text.contains("engine weaves."), "the newest quote is the home page's")
    }

    @Test func anInvalidNewQuoteIs422WithTheInputKept() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada")
        let response = try await browser.submit("/quotes", ["text": "Kept <text>", "author": "  "])
        #expect(response.status == .unprocessableContent)
        #expect(response.text.contains(">Kept &lt;text&gt;</textarea>"))
        #expect(response.text.contains("Please enter who said it."))
        #expect(app.store.state.quotes.count == 1)
        let huge = try await browser.submit("/quotes", ["text": "a" + String(repeating: "\u{301}", count: 20_000), "author": "A"])
        #expect(huge.status == .unprocessableContent)
        #expect(app.store.state.quotes.count == 1)
    }

    @Test func signedOutPeopleAreSentToSignInBeforeAnything() async throws {
        let app = try await TestApp()
        let form = await app.get("/quotes/new")
        #expect(form.status == .seeOther)
        #expect(form.headers["Location"] == "/login?return_to=/quotes/new")
        // Without a session there is no CSRF token either: the CSRF check comes first (403).
        #expect(await app.post("/quotes", form: ["text": "x", "author": "y"]).status == .forbidden)
        #expect(await app.post("/quotes/1/delete", form: [:]).status == .forbidden)
        #expect(app.store.state.quotes.count == 1)
    }

    @Test func onlyWhoAddedAQuoteMayDeleteItAndDeletingClearsFavourites() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        var bob = try await app.signedIn("bob")
        let id = try quoteID(in: try await ada.submit("/quotes", ["text": "Mine", "author": "Ada"]))
        #expect(try await bob.submit("/quotes/\(id)/favorite", [:]).status == .seeOther)
        #expect(!(await bob.get("/quotes/\(id)").text.contains("/delete\"")), "Delete is offered only to who added it")

        let refused = try await bob.submit("/quotes/\(id)/delete", [:])
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("Only the person who added a quote may delete it."))
        #expect(app.store.state.quotes[id] != nil)
        // The seed quote was added by no one: nobody may delete it.
        #expect(try await ada.submit("/quotes/1/delete", [:]).status == .forbidden)

        let deleted = try await ada.submit("/quotes/\(id)/delete", [:])
        #expect(deleted.status == .seeOther)
        #expect(deleted.headers["Location"] == "/quotes")
        #expect(await app.get("/quotes/\(id)").status == .notFound)
        #expect(await app.get("/quotes/\(id)/history").status == .notFound)
        #expect(app.store.state.user(named: Username("bob")!)?.favourite == nil)
        #expect(try await ada.submit("/quotes/\(id)/delete", [:]).status == .notFound)
    }

    @Test func historyListsEveryVersionNewestFirstAndRestoreMakesANewOne() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada", displayName: "Ada")
        var bob = try await app.signedIn("bob", displayName: "Bob <Builder>")
        let id = try quoteID(in: try await ada.submit("/quotes", ["text": "First words", "author": "A"]))
        #expect(try await bob.submit("/quotes/\(id)", ["text": "Second <words>", "author": "B", "version": "1"]).status == .seeOther)

        let history = await app.get("/quotes/\(id)/history")
        #expect(history.status == .ok)
        let text = history.text
        let second = try #require(text.range(of: "Second &lt;words&gt;"))
        let first = try #require(text.range(of: "First words"))
        #expect(second.lowerBound < first.lowerBound, "newest first")
        #expect(text.contains("Bob &lt;Builder&gt;"))
        #expect(!text.contains("Restore version"), "signed out: no Restore")

        let signedIn = await ada.get("/quotes/\(id)/history").text
        #expect(signedIn.contains("Restore version 1"))
        #expect(!signedIn.contains("Restore version 2"), "not on the current version")

        let restored = try await ada.submit("/quotes/\(id)/restore", ["version": "1"], formPage: "/quotes/\(id)/history")
        #expect(restored.status == .seeOther)
        #expect(restored.headers["Location"] == "/quotes/\(id)")
        let quote = try #require(app.store.state.quotes[id])
        #expect(quote.text == "First words")
        #expect(quote.version == 3)
        let after = await ada.get("/quotes/\(id)/history").text
        #expect(after.contains("Version 1 restored by"))
        #expect(after.contains("Restore version 2") && after.contains("Restore version 1") && !after.contains("Restore version 3"))
    }

    @Test func historyIsFiftyVersionsAPageWithLinksToNewerAndOlderPages() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada", displayName: "Ada")
        let date = TestApp.fixedNow
        for version in 1..<120 {
            let edit = AppAction.editQuote(QuoteID(1), QuoteDraft(text: "Words \(version + 1)", author: "A"), baseVersion: version, by: nil, at: date)
            #expect(try await app.store.dispatch(edit) == .success(.quoteEdited(QuoteID(1), version: version + 1)))
        }
        func shown(_ page: String) -> [Int] {
            page.components(separatedBy: "<h2 class=\"version-heading\">Version ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        }

        let first = await app.get("/quotes/1/history")
        #expect(first.status == .ok)
        #expect(shown(first.text) == Array((71...120).reversed()))
        #expect(first.text.contains("<ol class=\"history\" reversed start=\"120\">"))
        #expect(first.text.contains("<a href=\"/quotes/1/history?page=2\" rel=\"next\">Older versions</a>"))
        #expect(!first.text.contains("rel=\"prev\""))
        #expect(first.text.contains("Page 1 of 3"))

        let second = await ada.get("/quotes/1/history?page=2")
        #expect(second.status == .ok)
        #expect(shown(second.text) == Array((21...70).reversed()))
        #expect(second.text.contains("<title>History of the quote by A, page 2 · Quotebook</title>"))
        #expect(second.text.contains("<a href=\"/quotes/1/history\" rel=\"prev\">Newer versions</a>"))
        #expect(second.text.contains("<a href=\"/quotes/1/history?page=3\" rel=\"next\">Older versions</a>"))
        #expect(second.text.contains("Restore version 70") && second.text.contains("Restore version 21"))
        #expect(second.text.contains("<input type=\"hidden\" name=\"version\" value=\"70\">"))
        #expect(second.text.contains("Words 70") && !second.text.contains("Words 71<"))

        let last = await app.get("/quotes/1/history?page=3")
        #expect(shown(last.text) == Array((1...20).reversed()))
        #expect(last.text.contains("<a href=\"/quotes/1/history?page=2\" rel=\"prev\">Newer versions</a>"))
        #expect(!last.text.contains("rel=\"next\""))

        for missing in ["/quotes/1/history?page=4", "/quotes/1/history?page=0", "/quotes/1/history?page=x"] {
            let page = await app.get(missing)
            #expect(page.status == .notFound, "\(missing)")
            #expect(page.text.contains("It has 3 pages; the first is at /quotes/1/history."), "\(missing)")
        }
        // One version: one page, and no pager at all.
        #expect(try await ada.submit("/quotes", ["text": "Alone", "author": "B"]).status == .seeOther)
        let single = await app.get("/quotes/2/history").text
        #expect(shown(single) == [1])
        #expect(!single.contains("class=\"pager\""))
    }

    @Test func restoringAnUnknownVersionIs404AndAMissingOneIs400() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        #expect(try await ada.submit("/quotes/1/restore", ["version": "7"]).status == .notFound)
        #expect(try await ada.submit("/quotes/1/restore", ["version": "x"]).status == .badRequest)
        #expect(try await ada.submit("/quotes/9/restore", ["version": "1"]).status == .notFound)
        // Restoring the current version changes nothing and goes back to the quote.
        let current = try await ada.submit("/quotes/1/restore", ["version": "1"])
        #expect(current.status == .seeOther)
        #expect(app.store.state.quotes[QuoteID(1)]?.version == 1)
        #expect(await app.get("/quotes/9/history").status == .notFound)
    }

    @Test func headWorksOnTheNewPages() async throws {
        let app = try await TestApp()
        var ada = try await app.signedIn("ada")
        for target in ["/quotes/1/history", "/quotes/new"] {
            let get = await ada.get(target)
            let head = await ada.send(HTTPRequest(method: .head, target: target, headers: ["Host": "test"]))
            #expect(head.status == get.status)
        }
    }
}

/// Many people at once, over real sockets: one version wins, adds never collide.
@Suite struct QuoteBookConcurrencyTests {
    /// `count` people signed up on `app`, each with the cookies and CSRF token their browser sends.
    func people(_ count: Int, on app: TestApp) async throws -> [(cookies: String, csrf: String)] {
        var people: [(cookies: String, csrf: String)] = []
        for index in 0..<count {
            var browser = try await app.signedIn("person\(index)")
            people.append((browser.cookieHeader, try await browser.csrfToken(from: "/")))
        }
        return people
    }

    /// Every person POSTs `fields(index)` to `path` at once, each on a connection of their own.
    func postAtOnce(
        _ path: String, as people: [(cookies: String, csrf: String)], on app: TestApp,
        fields: @escaping @Sendable (Int) -> [(name: String, value: String)]
    ) async throws -> [ClientResponse] {
        let live = try LiveServer(responder: app.coordinator)
        let responses = try await withThrowingTaskGroup(of: ClientResponse.self) { group in
            for (index, person) in people.enumerated() {
                group.addTask {
                    let body = URLEncodedForm.encode(pairs: fields(index) + [("csrf_token", person.csrf)])
                    let request = "POST \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nCookie: \(person.cookies)\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    return try await live.connect().exchange(request)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await live.stop()
        return responses
    }

    @Test func sixteenSavesFromOneVersionGiveExactlyOne303() async throws {
        let app = try await TestApp()
        let responses = try await postAtOnce("/quotes/1", as: try await people(16, on: app), on: app) { index in
            [("text", "Version from \(index)"), ("author", "A"), ("version", "1")]
        }
        #expect(responses.filter { $0.status == 303 }.count == 1)
        #expect(responses.filter { $0.status == 409 }.count == 15)
        #expect(try await app.store.history(of: QuoteID(1)).count == 2, "one version per successful save")
    }

    @Test func sixteenAddsAtOnceAreAllKeptWithDistinctIds() async throws {
        let app = try await TestApp()
        let responses = try await postAtOnce("/quotes", as: try await people(16, on: app), on: app) { index in
            [("text", "Added by \(index)"), ("author", "A")]
        }
        #expect(responses.allSatisfy { $0.status == 303 })
        #expect(Set(responses.compactMap { $0.header("Location") }).count == 16)
        #expect(app.store.state.quotes.count == 17)
        #expect(Set(app.store.state.quotes.values.map(\.text)).isSuperset(of: (0..<16).map { "Added by \($0)" }))
    }
}

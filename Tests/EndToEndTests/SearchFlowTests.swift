import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// `GET /quotes?q=WORDS` over a real socket: every word, in any order, in the text or the author,
/// ignoring case and accents; paged like the list; the query kept, and shown escaped.
@Suite struct SearchFlowTests {
    static let date = Date(timeIntervalSince1970: 1_000)

    /// A book of `quotes` (text, author), added in order by one account.
    static func app(_ quotes: [(String, String)]) async throws -> TestApp {
        let signUp = AppAction.signUp(try #require(Username("ada")), displayName: "Ada", at: date)
        return try await TestApp(seed: [signUp] + quotes.map { .addQuote(QuoteDraft(text: $0.0, author: $0.1), by: UserID(1), at: date) })
    }

    static let classics = [
        ("Imagination is more important than knowledge.", "Albert Einstein"),
        ("L'École des femmes", "Molière"),
        ("Knowledge speaks, but wisdom listens.", "Jimi Hendrix"),
    ]

    /// GETs every target in turn from a live server on `app`, on one connection.
    func get(_ targets: [String], from app: TestApp) async throws -> [ClientResponse] {
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        var responses: [ClientResponse] = []
        for target in targets {
            responses.append(try await client.exchange("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        }
        client.close()
        await live.stop()
        return responses
    }

    @Test func findsEveryWordInAnyOrderInTextOrAuthorIgnoringCaseAndAccents() async throws {
        let app = try await Self.app(Self.classics)
        let pages = try await get(
            [
                "/quotes?q=ecole", "/quotes?q=%C3%89COLE", "/quotes?q=knowledge", "/quotes?q=knowledge+einstein",
                "/quotes?q=EINSTEIN%20Knowledge", "/quotes?q=moliere", "/quotes?q=wisdom+einstein",
            ], from: app)
        #expect(pages.allSatisfy { $0.status == 200 })
        let texts = pages.map(\.text)
        #expect(texts[0].contains("L&#39;École des femmes") && !texts[0].contains("Imagination"))
        #expect(texts[1].contains("L&#39;École des femmes"), "the query's accents and capitals are ignored too")
        let both = try #require(texts[2].range(of: "Knowledge speaks"))
        let older = try #require(texts[2].range(of: "Imagination is more"))
        #expect(both.lowerBound < older.lowerBound, "newest first")
        #expect(texts[2].contains("2 quotes match."))
        for text in texts[3...4] {
            #expect(text.contains("Imagination is more important") && !text.contains("Knowledge speaks"), "author words count, in any order")
            #expect(text.contains("1 quote matches."))
        }
        #expect(texts[5].contains("L&#39;École des femmes"))
        #expect(texts[6].contains("No quote contains every word of “wisdom einstein”."))
    }

    @Test func theQueryIsKeptInTheLabelledSearchBoxAndTitled() async throws {
        let app = try await Self.app(Self.classics)
        let page = try #require(try await get(["/quotes?q=%C3%89cole+des"], from: app).first)
        #expect(page.text.contains("<title>Search: École des · Quotebook</title>"))
        #expect(page.text.contains("<h1>Quotes matching “École des”</h1>"))
        #expect(page.text.contains("<form class=\"search-form\" method=\"get\" action=\"/quotes\" role=\"search\">"))
        #expect(page.text.contains("<label for=\"search-query\">"))
        #expect(page.text.contains("<input id=\"search-query\" name=\"q\" type=\"search\" value=\"École des\""))
        #expect(page.text.contains("<a href=\"/quotes\">Show every quote</a>"))
        let plain = try #require(try await get(["/quotes"], from: app).first)
        #expect(plain.text.contains("name=\"q\" type=\"search\" value=\"\""), "the plain list has the box too, empty")
        #expect(!plain.text.contains("Show every quote"))
    }

    @Test func markupInTheQueryIsShownEscapedEverywhere() async throws {
        let app = try await Self.app(Self.classics)
        let pages = try await get(["/quotes?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/quotes?q=%22%3E%3Cb%3E&page=9"], from: app)
        let page = pages[0].text
        #expect(pages[0].status == 200)
        #expect(!page.contains("<script>"))
        #expect(page.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\""))
        #expect(page.contains("No quote contains every word of “&lt;script&gt;alert(1)&lt;/script&gt;”."))
        #expect(page.contains("<title>Search: &lt;script&gt;alert(1)&lt;/script&gt; · Quotebook</title>"))
        #expect(pages[1].status == 404)
        #expect(!pages[1].text.contains("\"><b>"))
        #expect(pages[1].text.contains("matching “&quot;&gt;&lt;b&gt;”"))
    }

    @Test func resultsArePagedTwentyAtATimeAndTheLinksKeepTheQuery() async throws {
        let quotes = (1...45).map { ("Match number \($0)", "Someone") } + (1...5).map { ("Other \($0)", "Else") }
        let app = try await Self.app(quotes)
        let pages = try await get(
            ["/quotes?q=match", "/quotes?q=match&page=2", "/quotes?q=match&page=3", "/quotes?q=match&page=4", "/quotes?q=match&page=x",
             "/quotes?q=match&page=0", "/quotes?q=nothing&page=2"], from: app)
        let first = pages[0].text
        #expect(first.contains("45 quotes match."))
        #expect(first.components(separatedBy: "<li><a href=\"/quotes/").count - 1 == 20)
        #expect(first.contains("Match number 45") && first.contains("Match number 26") && !first.contains("Match number 25”"))
        #expect(first.contains("<a href=\"/quotes?q=match&amp;page=2\" rel=\"next\">Older</a>"))
        #expect(!first.contains("rel=\"prev\""))
        #expect(first.contains("<title>Search: match, page 1 · Quotebook</title>"))
        let second = pages[1].text
        #expect(second.contains("<a href=\"/quotes?q=match\" rel=\"prev\">Newer</a>"))
        #expect(second.contains("<a href=\"/quotes?q=match&amp;page=3\" rel=\"next\">Older</a>"))
        #expect(second.contains("Page 2 of 3"))
        #expect(second.contains("<ol class=\"quote-list\" start=\"21\">"))
        #expect(pages[2].text.contains("<ol class=\"quote-list\" start=\"41\">"))
        let third = pages[2].text
        #expect(third.components(separatedBy: "<li><a href=\"/quotes/").count - 1 == 5)
        #expect(third.contains("Match number 1”") && !third.contains("Other"))
        #expect(!third.contains("rel=\"next\""))
        for response in pages[3...6] {
            #expect(response.status == 404)
        }
        #expect(pages[3].text.contains("There is no such page of quotes matching “match”. The search has 3 pages; the first is at /quotes?q=match."))
        #expect(pages[6].text.contains("The search has 1 page; the first is at /quotes?q=nothing."))
    }

    @Test func headWorksWhereTheSearchDoes() async throws {
        let app = try await Self.app(Self.classics)
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        try await client.send("HEAD /quotes?q=ecole HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = try await client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Type")?.hasPrefix("text/html") == true)
        client.close()
        await live.stop()
    }
}

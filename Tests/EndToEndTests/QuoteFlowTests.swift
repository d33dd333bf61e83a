import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// The walking skeleton's flows over a real socket, against the server started in this process.
@Suite struct QuoteFlowTests {
    func request(
        _ method: String, _ path: String, body: String? = nil, connection: String = "keep-alive", cookies: String? = nil
    ) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: \(connection)\r\n"
        if let cookies { text += "Cookie: \(cookies)\r\n" }
        if let body {
            text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        return text + "\r\n" + (body ?? "")
    }

    func form(_ fields: KeyValuePairs<String, String>, csrf: String) -> String {
        URLEncodedForm.encode(pairs: fields.map { (name: $0.key, value: $0.value) } + [(name: "csrf_token", value: csrf)])
    }

    /// Signs up `ada` in memory and returns the cookies and CSRF token a browser would then send.
    func signIn(_ app: TestApp) async throws -> (cookies: String, csrf: String) {
        var browser = try await app.signedIn("ada")
        return (browser.cookieHeader, try await browser.csrfToken(from: "/"))
    }

    @Test func showEditSaveShowsTheNewText() async throws {
        let app = try await TestApp()
        let (cookies, csrf) = try await signIn(app)
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()

        let home = try await client.exchange(request("GET", "/"))
        #expect(home.status == 200)
        #expect(home.text.contains("Two things are infinite"))
        #expect(home.text.contains("href=\"/quotes/1/edit\""))

        let signedOut = try await client.exchange(request("GET", "/quotes/1/edit"))
        #expect(signedOut.status == 303)
        #expect(signedOut.header("Location") == "/login?return_to=/quotes/1/edit")
        let edit = try await client.exchange(request("GET", "/quotes/1/edit", cookies: cookies))
        #expect(edit.status == 200)
        #expect(edit.text.contains("name=\"version\" value=\"1\""))

        let save = try await client.exchange(
            request(
                "POST", "/quotes/1",
                body: form(["text": "Simplicity is prerequisite for reliability.", "author": "Edsger W. Dijkstra", "version": "1"], csrf: csrf),
                cookies: cookies))
        #expect(save.status == 303)
        #expect(save.header("Location") == "/quotes/1")

        let show = try await client.exchange(request("GET", "/quotes/1"))
        #expect(show.status == 200)
        #expect(show.text.contains("Simplicity is prerequisite for reliability."))
        #expect(show.text.contains("Edsger W. Dijkstra"))
        #expect(app.store.state.quotes[QuoteID(1)]?.updatedBy == UserID(1))

        let homeAgain = try await client.exchange(request("GET", "/", connection: "close"))
        #expect(homeAgain.text.contains("Simplicity is prerequisite"))
        await live.stop()
    }

    @Test func invalidEditIsAnsweredWith422KeepingTheInput() async throws {
        let app = try await TestApp()
        let (cookies, csrf) = try await signIn(app)
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        let response = try await client.exchange(
            request("POST", "/quotes/1", body: form(["text": "   ", "author": "Kept <Author>", "version": "1"], csrf: csrf), cookies: cookies))
        #expect(response.status == 422)
        #expect(response.text.contains("value=\"Kept &lt;Author&gt;\""))
        #expect(response.text.contains("Please enter the quote&#39;s text."))
        #expect(app.store.state.quotes[QuoteID(1)]?.version == 1)
        await live.stop()
    }

    @Test func staleVersionIsAConflictShowingBothTexts() async throws {
        let app = try await TestApp()
        let (cookies, csrf) = try await signIn(app)
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        let first = try await client.exchange(
            request("POST", "/quotes/1", body: form(["text": "Theirs", "author": "Them", "version": "1"], csrf: csrf), cookies: cookies))
        #expect(first.status == 303)
        let second = try await client.exchange(
            request("POST", "/quotes/1", body: form(["text": "Mine", "author": "Me", "version": "1"], csrf: csrf), cookies: cookies))
        #expect(second.status == 409)
        #expect(second.text.contains("Theirs"))
        #expect(second.text.contains(">Mine</textarea>"))
        #expect(second.text.contains("name=\"version\" value=\"2\""))
        #expect(app.store.state.quotes[QuoteID(1)]?.text == "Theirs")
        await live.stop()
    }

    @Test func anEditSurvivesARestartOnTheSameDataDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path

        let first = try await TestApp(journalPath: path)
        let (cookies, csrf) = try await signIn(first)
        let live = try LiveServer(responder: first.coordinator)
        let save = try await live.connect().exchange(
            request("POST", "/quotes/1", body: form(["text": "Persisted", "author": "Disk", "version": "1"], csrf: csrf), cookies: cookies))
        #expect(save.status == 303)
        await live.stop()
        await first.close()

        let second = try await TestApp(journalPath: path)
        let again = try LiveServer(responder: second.coordinator)
        let show = try await again.connect().exchange(request("GET", "/quotes/1", cookies: cookies))
        #expect(show.text.contains("Persisted"))
        #expect(show.text.contains("Sign out"), "the session survives the restart")
        #expect(second.store.state.quotes.count == 1)
        await again.stop()
        await second.close()
    }

    @Test func malformedRequestGets400AndTheNextConnectionIsServed() async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        let bad = try live.connect()
        let rejected = try await bad.exchange("GARBAGE\r\n\r\n")
        #expect(rejected.status == 400)
        #expect(try await bad.isClosedByPeer())

        let good = try await live.connect().exchange(request("GET", "/healthz"))
        #expect(good.status == 200)
        #expect(good.text == "ok")
        await live.stop()
    }
}

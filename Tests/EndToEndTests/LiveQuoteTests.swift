import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// `GET /quotes/{id}/events` over a real socket: the quote at once, an event per change, a
/// heartbeat, `Last-Event-ID`, deletion, 404, HEAD, shutdown and a client that does not read.
@Suite(.timeLimit(.minutes(2))) struct LiveQuoteTests {
    static let ada = UserID(1)

    /// Waits (polling every 5 ms, at most `limit`) until `condition` holds; whether it did.
    static func waitUntil(limit: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Opens quote `id`'s event stream, optionally saying which version the client has.
    static func open(_ live: LiveServer, quote id: Int = 1, lastEventID: String? = nil) async throws -> EventStreamClient {
        try await EventStreamClient(
            port: live.port, target: "/quotes/\(id)/events", headers: lastEventID.map { [("Last-Event-ID", $0)] } ?? [])
    }

    static func edit(_ app: TestApp, _ id: QuoteID = QuoteID(1), text: String, by user: UserID? = nil) async throws {
        let version = try #require(app.store.state.quotes[id]?.version)
        let outcome = try await app.store.dispatch(
            .editQuote(id, QuoteDraft(text: text, author: "Someone"), baseVersion: version, by: user, at: TestApp.fixedNow))
        guard case .success = outcome else { throw TestBrowser.Failure("the edit was refused: \(outcome)") }
    }

    @Test func sendsTheQuoteAtOnceThenAnEventForEveryEditAndRestore() async throws {
        let app = try await TestApp()
        var browser = try await app.signedIn("ada", displayName: "Ada <Lovelace>")
        let live = try LiveServer(responder: app.coordinator)
        let stream = try await Self.open(live)
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type") == "text/event-stream")
        #expect(stream.header("Cache-Control") == "no-store")
        #expect(stream.header("Transfer-Encoding") == "chunked")

        let first = try #require(try await stream.nextEvent())
        #expect(first.name == "quote")
        #expect(first.id == "1")
        #expect(first.json?["text"] as? String == SeedContent.einstein.text)
        #expect(first.json?["changedBy"] == nil)

        // What a person types cannot end the data line or forge a field: it travels as JSON.
        let typed = "Line one\n\ndata: forged\r\nevent: deleted\n\n<script>alert(1)</script>"
        let save = try await browser.submit("/quotes/1", ["text": typed, "author": "Some \"one\"", "version": "1"])
        #expect(save.status == .seeOther)
        let edited = try #require(try await stream.nextEvent())
        #expect(edited.name == "quote")
        #expect(edited.id == "2")
        let json = try #require(edited.json)
        let saved = try #require(app.store.state.quotes[QuoteID(1)])
        #expect(json["text"] as? String == saved.text)
        #expect(saved.text.contains("data: forged") && saved.text.contains("<script>"))
        #expect(json["author"] as? String == "Some \"one\"")
        #expect(json["version"] as? Int == 2)
        #expect(json["changedBy"] as? String == "Ada <Lovelace>")
        #expect(json["changedByURL"] as? String == "/users/ada")
        #expect(json["editURL"] as? String == "/quotes/1/edit")
        #expect(json["changedAtISO"] as? String == "2026-11-22T07:00:00Z")

        let restore = try await app.store.dispatch(
            .restoreQuote(QuoteID(1), SeedContent.einstein, fromVersion: 1, by: Self.ada, at: TestApp.fixedNow))
        #expect(restore == .success(.quoteRestored(QuoteID(1), version: 3)))
        let restored = try #require(try await stream.nextEvent())
        #expect(restored.id == "3")
        #expect(restored.json?["text"] as? String == SeedContent.einstein.text)
        stream.close()
        await live.stop()
    }

    @Test func aDeletionIsSentAndEndsTheStream() async throws {
        let app = try await TestApp()
        _ = try await app.signedIn("ada")
        let added = try await app.store.dispatch(.addQuote(QuoteDraft(text: "Short-lived", author: "Ada"), by: Self.ada, at: TestApp.fixedNow))
        guard case .success(.quoteAdded(let id)) = added else {
            Issue.record("not added: \(added)")
            return
        }
        let live = try LiveServer(responder: app.coordinator)
        let stream = try await Self.open(live, quote: id.rawValue)
        #expect(try await stream.nextEvent()?.id == "1")
        #expect(app.coordinator.openEventStreams == 1)

        #expect(try await app.store.dispatch(.deleteQuote(id, by: Self.ada, at: TestApp.fixedNow)) == .success(.quoteDeleted(id)))
        let deleted = try #require(try await stream.nextEvent())
        #expect(deleted.name == "deleted")
        #expect(deleted.json?["id"] as? Int == id.rawValue)
        #expect(try await stream.readToEnd() == .lastChunk)
        #expect(try await Self.waitUntil { app.coordinator.openEventStreams == 0 })

        let gone = try await SocketClient(port: live.port).exchange(
            "GET /quotes/\(id)/events HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        #expect(gone.status == 404)
        await live.stop()
    }

    @Test func sendsAHeartbeatCommentEveryInterval() async throws {
        let app = try await TestApp(live: LiveSettings(heartbeatInterval: .milliseconds(50)))
        let live = try LiveServer(responder: app.coordinator)
        let stream = try await Self.open(live)
        #expect(try await stream.next()?.name == "quote")
        for _ in 0..<2 {
            let beat = try #require(try await stream.next())
            #expect(beat.isComment)
            #expect(beat.data == "heartbeat")
        }
        stream.close()
        await live.stop()
    }

    @Test func honoursLastEventID() async throws {
        let app = try await TestApp(live: LiveSettings(heartbeatInterval: .milliseconds(50)))
        try await Self.edit(app, text: "Version two")
        let live = try LiveServer(responder: app.coordinator)

        // A browser reconnecting with an older version is sent the current one at once.
        let behind = try await Self.open(live, lastEventID: "1")
        let caughtUp = try #require(try await behind.next())
        #expect(caughtUp.id == "2")
        #expect(caughtUp.json?["text"] as? String == "Version two")
        behind.close()

        // One that has the current version is sent nothing until the next change: the first
        // thing to arrive is a heartbeat.
        let current = try await Self.open(live, lastEventID: "2")
        #expect(try await current.next()?.isComment == true)
        try await Self.edit(app, text: "Version three")
        let next = try #require(try await current.nextEvent())
        #expect(next.id == "3")
        #expect(next.json?["text"] as? String == "Version three")
        current.close()
        await live.stop()
    }

    @Test func unknownQuoteIsA404PageAndHEADWorks() async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        let client = try live.connect()
        let missing = try await client.exchange("GET /quotes/99/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "text/html; charset=utf-8")
        #expect(missing.text.contains("<!doctype html>"))
        let head = try await client.exchange("HEAD /quotes/1/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.body.isEmpty)
        #expect(try await client.exchange("HEAD /quotes/99/events HTTP/1.1\r\nHost: localhost\r\n\r\n").status == 404)
        let post = try await client.exchange("POST /quotes/1/events HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
        #expect(post.status == 405)
        // HEAD opened no stream.
        #expect(app.coordinator.openEventStreams == 0)
        client.close()
        await live.stop()
    }

    @Test func shutdownEndsEveryStreamInOrder() async throws {
        let app = try await TestApp()
        let live = try LiveServer(responder: app.coordinator)
        var streams: [EventStreamClient] = []
        for _ in 0..<3 {
            let stream = try await Self.open(live)
            #expect(try await stream.nextEvent()?.id == "1")
            streams.append(stream)
        }
        #expect(app.coordinator.openEventStreams == 3)
        await live.stop()
        // Ended by the server with the last chunk, not cut off when the grace period ran out.
        for stream in streams { #expect(try await stream.readToEnd() == .lastChunk) }
        #expect(try await Self.waitUntil { app.coordinator.openEventStreams == 0 })
    }

    @Test func aClientThatDoesNotReadIsDropped() async throws {
        let app = try await TestApp()
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.streamBufferLimit = 16 * 1024
        let live = try LiveServer(responder: app.coordinator, configuration: configuration)
        let fd = try TestSocket.connect(port: live.port)
        defer { TestSocket.close(fd) }
        TestSocket.setReceiveBuffer(fd, bytes: 4096)
        #expect(TestSocket.send(fd, Array("GET /quotes/1/events HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)))
        #expect(try await Self.waitUntil { app.coordinator.openEventStreams == 1 })
        // Each edit is an event of about 4 KB; the client reads none of them. Once the kernel's
        // buffers are full the server's output passes the limit and the client is dropped.
        let text = String(repeating: "😀", count: 990)
        var edits = 0
        while app.coordinator.openEventStreams == 1, edits < 5000 {
            try await Self.edit(app, text: text + String(edits))
            edits += 1
        }
        #expect(try await Self.waitUntil { app.coordinator.openEventStreams == 0 })
        #expect(edits < 5000)
        let (received, closed) = try await offPool { () throws -> (Int, Bool) in
            var count = 0
            while true {
                switch TestSocket.read(fd, milliseconds: 10_000) {
                case .data(let bytes): count += bytes.count
                case .endOfStream, .reset: return (count, true)
                case .timedOut, .failed: return (count, false)
                }
            }
        }
        #expect(closed)
        #expect(received < edits * 4000)
        await live.stop()
    }

    @Test func theQuotePageNamesItsStreamAndLoadsTheScriptFromPublicWithinItsPolicy() async throws {
        let app = try await TestApp()
        let page = await app.get("/quotes/1")
        #expect(page.text.contains(#"data-events-url="/quotes/1/events" data-version="1""#))
        // At its versioned address (the content's hash), which the browser may keep a year.
        let address = try #require(page.text.firstMatch(of: #/<script src="(/live\.js\?v=[0-9a-f]{16})" defer></script>/#)?.1)
        // No inline script or style, which `default-src 'self'` would block.
        #expect(page.text.components(separatedBy: "<script").dropFirst().allSatisfy { $0.hasPrefix(#" src="/"#) })
        #expect(!page.text.contains("<style") && !page.text.contains(" style="))
        #expect(page.headers["Content-Security-Policy"]?.contains("default-src 'self'") == true)
        let script = await app.get(String(address))
        #expect(script.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        #expect(script.status == .ok)
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.text.contains("new EventSource(article.getAttribute(\"data-events-url\"))"))
        #expect(script.text.contains(".textContent = quote.text"))
        #expect(!script.text.contains("innerHTML"))
    }

    @Test func sigtermEndsOpenStreamsAndTheServerExits() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let storage = try await TestBackend.current().storageArguments(data: data.url)
        let quotebook = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path] + storage)
        try await quotebook.waitUntilListening()
        let stream = try await EventStreamClient(port: try #require(quotebook.port), target: "/quotes/1/events")
        #expect(try await stream.nextEvent()?.id == "1")
        #expect(await quotebook.stop(signal: SIGTERM) == 0)
        #expect(try await stream.readToEnd() == .lastChunk)
    }
}

import Foundation
import TestSupport
import Testing

/// The real executable, started as a person starts it.
@Suite(.timeLimit(.minutes(2))) struct ProcessTests {
    @Test func printsTheListeningLineServesAndStopsCleanlyOnSIGTERM() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let storage = try await TestBackend.current().storageArguments(data: data.url)
        let quotebook = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path] + storage)
        let line = try await quotebook.waitUntilListening()
        #expect(line.hasPrefix("Quotebook listening on http://127.0.0.1:"))
        let port = try #require(quotebook.port)
        #expect(port > 0)

        let home = try await SocketClient(port: port).exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(home.status == 200)
        #expect(home.text.contains("Two things are infinite"))
        #expect(await quotebook.stop(signal: SIGTERM) == 0)
        let database = data.url.appendingPathComponent("quotebook.sqlite3").path
        if TestBackend.isPostgres {
            // With --database the data directory is not used at all.
            #expect(!FileManager.default.fileExists(atPath: database))
        } else {
            // Closed cleanly: the WAL is checkpointed into the database file and removed.
            #expect(FileManager.default.fileExists(atPath: database))
            #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        }
    }

    @Test func stopsCleanlyOnSIGINTAndKeepsDataForTheNextStart() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let storage = try await TestBackend.current().storageArguments(data: data.url)
        let arguments = ["--port", "0", "--root", RepositoryPaths.root.path] + storage
        let first = try QuotebookProcess(arguments: arguments)
        try await first.waitUntilListening()
        var browser = SocketBrowser(port: try #require(first.port))
        #expect(try await browser.signUp("tester").status == 303)
        let save = try await browser.submit(
            "/quotes/1", [("text", "Kept across restarts"), ("author", "Tester"), ("version", "1")], formPage: "/quotes/1/edit")
        #expect(save.status == 303)
        #expect(await first.stop(signal: SIGINT) == 0)

        let second = try QuotebookProcess(arguments: arguments)
        try await second.waitUntilListening()
        var again = SocketBrowser(port: try #require(second.port), cookies: browser.cookies)
        let show = try await again.get("/quotes/1")
        #expect(show.text.contains("Kept across restarts"))
        #expect(show.text.contains(">tester</a>"), "the session and the account survive the restart")
        #expect(await second.stop() == 0)
    }

    @Test func environmentVariablesConfigureTheServer() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let quotebook = try QuotebookProcess(
            arguments: [],
            environment: ["QUOTEBOOK_PORT": "0", "QUOTEBOOK_DATA": data.url.path, "QUOTEBOOK_ROOT": RepositoryPaths.root.path]
        )
        try await quotebook.waitUntilListening()
        #expect(quotebook.port != 8080)
        #expect(FileManager.default.fileExists(atPath: data.url.appendingPathComponent("quotebook.sqlite3").path))
        #expect(await quotebook.stop() == 0)
    }

    @Test func aSecondServerOnTheSameDataIsRefused() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let arguments = ["--port", "0", "--data", data.url.path, "--root", RepositoryPaths.root.path]
        let first = try QuotebookProcess(arguments: arguments)
        try await first.waitUntilListening()
        let second = try QuotebookProcess(arguments: arguments)
        #expect(await second.waitForExit() != 0)
        #expect(await second.standardError().contains("another Quotebook process"))
        #expect(await first.stop() == 0)
    }

    @Test func refusesADatabaseOfAnotherApplication() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let file = data.url.appendingPathComponent("quotebook.sqlite3")
        let bytes = Data("not a database at all, just some text that is long enough to matter".utf8)
        try bytes.write(to: file)
        let quotebook = try QuotebookProcess(arguments: ["--port", "0", "--data", data.url.path, "--root", RepositoryPaths.root.path])
        #expect(await quotebook.waitForExit() != 0)
        #expect(await quotebook.standardError().contains("left as it was"))
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func refusesToStartWithABrokenTemplate() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let templates = try RepositoryPaths.copyTemplates(into: root.url)
        try "{{#page}}never closed".write(to: templates.appendingPathComponent("home.mustache"), atomically: true, encoding: .utf8)
        let quotebook = try QuotebookProcess(arguments: [
            "--port", "0", "--data", root.url.appendingPathComponent("data").path, "--root", root.url.path,
        ])
        #expect(await quotebook.waitForExit() != 0)
        let message = await quotebook.standardError()
        #expect(message.contains("home.mustache:1:"))
    }

    @Test func refusesToStartWithoutAPageTemplate() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let templates = try RepositoryPaths.copyTemplates(into: root.url)
        try FileManager.default.removeItem(at: templates.appendingPathComponent("quote_edit.mustache"))
        let quotebook = try QuotebookProcess(arguments: [
            "--port", "0", "--data", root.url.appendingPathComponent("data").path, "--root", root.url.path,
        ])
        #expect(await quotebook.waitForExit() != 0)
        #expect(await quotebook.standardError().contains("quote_edit.mustache"))
    }

    @Test func helpListsTheOptions() async throws {
        let quotebook = try QuotebookProcess(arguments: ["--help"])
        let line = await quotebook.firstLine()
        #expect(line?.hasPrefix("Usage: quotebook") == true)
        #expect(await quotebook.waitForExit() == 0)
    }

    @Test func badOptionExitsNonZeroWithAMessage() async throws {
        let quotebook = try QuotebookProcess(arguments: ["--port", "banana"])
        #expect(await quotebook.waitForExit() != 0)
        #expect(await quotebook.standardError().contains("--port"))
    }
}

/// `quotebook render NAME`, run as a person runs it.
@Suite(.timeLimit(.minutes(2))) struct RenderProcessTests {
    @Test func writesExactlyTheRenderedBytes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "<p>{{name}}</p>{{>tail}}".write(to: directory.url.appendingPathComponent("card.mustache"), atomically: true, encoding: .utf8)
        try "!".write(to: directory.url.appendingPathComponent("tail.mustache"), atomically: true, encoding: .utf8)
        let quotebook = try QuotebookProcess(
            arguments: ["render", "card", "--templates", directory.url.path, "--repeat", "3"],
            input: Data(#"{"name": "<Ada & Grace>"}"#.utf8)
        )
        let output = await quotebook.standardOutput()
        #expect(await quotebook.waitForExit() == 0)
        #expect(String(decoding: output, as: UTF8.self) == "<p>&lt;Ada &amp; Grace&gt;</p>!")
    }

    @Test func failsWithAMessageForAMissingTemplate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let quotebook = try QuotebookProcess(
            arguments: ["render", "absent", "--templates", directory.url.path], input: Data("{}".utf8))
        #expect(await quotebook.standardOutput().isEmpty)
        #expect(await quotebook.waitForExit() != 0)
        #expect(await quotebook.standardError().contains("absent"))
    }

    @Test func failsWithAMessageForInvalidJSON() async throws {
        let quotebook = try QuotebookProcess(
            arguments: ["render", "home", "--templates", RepositoryPaths.templates.path], input: Data("{oops".utf8))
        #expect(await quotebook.standardOutput().isEmpty)
        #expect(await quotebook.waitForExit() != 0)
        #expect(await quotebook.standardError().isEmpty == false)
    }
}

/// Running out of file descriptors pauses accepting instead of crashing or spinning.
@Suite(.timeLimit(.minutes(2))) struct DescriptorExhaustionTests {
    /// Not under ThreadSanitizer: its runtime in the child needs descriptors of its own to
    /// symbolize and write a report, so with none left it dies or reports unsymbolized (and so
    /// unsuppressed) stacks. The plain `swift test` run covers this.
    @Test(
        .disabled(if: Sanitizers.isThreadSanitizerActive, "the TSan runtime needs descriptors the test takes away"))
    func survivesRunningOutOfDescriptorsAndServesOnceTheyAreFreed() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        // 64 descriptors: the runtime, SQLite (database, WAL, shm), epoll and eventfds take some;
        // the 100 clients below take the rest, so accept fails with EMFILE for a while.
        let quotebook = try QuotebookProcess(
            arguments: ["--port", "0", "--data", data.url.path, "--root", RepositoryPaths.root.path, "--log-level", "warning"],
            fileLimit: 64)
        try await quotebook.waitUntilListening()
        let port = try #require(quotebook.port)

        // The crowd asks and waits: the server answers those it could accept and has hit EMFILE
        // on the next once one goes unanswered (the server reads and closes a connection the
        // moment it accepts it, so a crowd that left at once would free its descriptors first).
        var crowd: [SocketClient] = []
        do {
            for _ in 0..<100 { crowd.append(try SocketClient(port: port, timeout: 1)) }
        } catch {
            // Seen twice under heavy load (ECONNREFUSED): say how the server ended, if it did.
            let status = await quotebook.stop()
            Issue.record("connecting the crowd failed after \(crowd.count): \(error); quotebook exited \(status): \(await quotebook.standardError())")
            return
        }
        // Best effort: a connection the server could not keep may already be reset.
        for client in crowd { try? await client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") }
        var answered = 0
        for client in crowd {
            guard (try? await client.readResponse())?.status == 200 else { break }
            answered += 1
        }
        #expect(answered < 100, "every one of the crowd was accepted with 64 descriptors")
        for client in crowd { client.close() }
        crowd.removeAll()

        // Accepting resumes: each of these is answered once earlier descriptors are closed.
        for _ in 0..<3 {
            let response = try await SocketClient(port: port).exchange("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(response.status == 200)
        }
        #expect(await quotebook.stop() == 0)
        #expect(await quotebook.standardError().contains("accept"))
    }
}

import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// `--dev`: every page loads a script that follows `GET /dev/events`, which says `reload` when a
/// watched file changes or the server restarted; without `--dev` neither exists.
@Suite(.timeLimit(.minutes(2))) struct DevelopmentReloadTests {
    /// A development app on a copy of the templates, watching it every 10 ms.
    static func makeApp(_ directory: TemporaryDirectory) async throws -> (TestApp, URL) {
        let templates = try RepositoryPaths.copyTemplates(into: directory.url)
        let app = try await TestApp(
            isDevelopment: true, templates: templates,
            live: LiveSettings(heartbeatInterval: .milliseconds(50), watchedFolders: [templates], watchInterval: .milliseconds(10)))
        return (app, templates)
    }

    @Test(arguments: ["/", "/quotes/1", "/login", "/nowhere"])
    func everyDevelopmentPageLoadsTheReloadScript(path: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (app, _) = try await Self.makeApp(directory)
        let page = await app.get(path).text
        #expect(page.contains(#"<script src="/dev-reload.js" data-events-url="/dev/events" defer></script>"#))
        let script = await app.get("/dev-reload.js")
        #expect(script.status == .ok)
        #expect(script.text.contains("window.location.reload()"))
    }

    @Test func withoutDevelopmentThereIsNoScriptAndNoStream() async throws {
        let app = try await TestApp()
        #expect(!(await app.get("/").text.contains("dev-reload.js")))
        let stream = await app.get("/dev/events")
        #expect(stream.status == .notFound)
        #expect(stream.text.contains("<!doctype html>"))
    }

    @Test func aChangedTemplateTellsOpenPagesToReload() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (app, templates) = try await Self.makeApp(directory)
        let live = try LiveServer(responder: app.coordinator)
        let stream = try await EventStreamClient(port: live.port, target: "/dev/events")
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type") == "text/event-stream")
        let version = try #require(try await stream.nextEvent()?.id)
        // Nothing changes: heartbeats only.
        #expect(try await stream.next()?.isComment == true)

        let home = templates.appendingPathComponent("home.mustache")
        try (try String(contentsOf: home, encoding: .utf8) + "\n<p>changed</p>").write(to: home, atomically: false, encoding: .utf8)
        #expect(try await stream.nextEvent()?.name == "reload")
        #expect(try await stream.readToEnd() == .lastChunk)

        // A browser coming back with the old version is told at once; one with the new is not.
        let behind = try await EventStreamClient(port: live.port, target: "/dev/events", headers: [("Last-Event-ID", version)])
        #expect(try await behind.next()?.name == "reload")
        behind.close()
        let fresh = try await EventStreamClient(port: live.port, target: "/dev/events")
        let current = try #require(try await fresh.next()?.id)
        #expect(current != version)
        fresh.close()
        let upToDate = try await EventStreamClient(port: live.port, target: "/dev/events", headers: [("Last-Event-ID", current)])
        #expect(try await upToDate.next()?.id == current)
        #expect(try await upToDate.next()?.isComment == true)
        upToDate.close()
        await live.stop()
    }

    @Test func anotherServerProcessIsAnotherVersion() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let first = DevelopmentReload(folders: [folder.url], interval: .milliseconds(10), heartbeatInterval: .seconds(1))
        let second = DevelopmentReload(folders: [folder.url], interval: .milliseconds(10), heartbeatInterval: .seconds(1))
        #expect(first.version() == first.version())
        #expect(first.version() != second.version())
    }
}

import Foundation
import HTTPServer
import TestSupport
import Logging
import Store
import Testing

/// `--dev`: templates are re-read when their files change, and a broken one shows its details
/// on an error page in the layout.
@Suite struct DevelopmentModeTests {
    @Test func brokenTemplateShowsAnErrorPageInTheLayoutUntilFixed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let templates = try RepositoryPaths.copyTemplates(into: directory.url)
        let app = try await TestApp(isDevelopment: true, templates: templates)
        let home = templates.appendingPathComponent("home.mustache")
        let original = try String(contentsOf: home, encoding: .utf8)

        try (original + "\n{{#never}} closed").write(to: home, atomically: false, encoding: .utf8)
        let broken = await app.get("/")
        #expect(broken.status == .internalServerError)
        #expect(broken.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(broken.text.contains("<!doctype html>"))
        #expect(broken.text.contains("Something went wrong"))
        #expect(broken.text.contains("home.mustache:"))

        try (original + "\n<p>edited while running</p>").write(to: home, atomically: false, encoding: .utf8)
        let fixed = await app.get("/")
        #expect(fixed.status == .ok)
        #expect(fixed.text.contains("edited while running"))
    }

    @Test func productionErrorPagesHideTheDetails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let templates = try RepositoryPaths.copyTemplates(into: directory.url)
        let app = try await TestApp(isDevelopment: false, templates: templates)
        // Compiled once at start: a later edit on disk changes nothing.
        try "{{#never}} closed".write(to: templates.appendingPathComponent("home.mustache"), atomically: false, encoding: .utf8)
        let home = await app.get("/")
        #expect(home.status == .ok)
        #expect(!home.text.contains("home.mustache"))
    }

    /// A journal that can no longer be written (here: closed under the app) makes a save a server
    /// fault: a 500 page in the layout, the details only with `--dev`, and the server goes on.
    @Test(arguments: [false, true])
    func aFailingJournalIsA500PageWithDetailsOnlyInDevelopment(isDevelopment: Bool) async throws {
        let app = try await TestApp(isDevelopment: isDevelopment)
        var browser = try await app.signedIn("ada")
        let token = try await browser.csrfToken(from: "/quotes/1/edit")
        await app.store.close()
        let save = await browser.post("/quotes/1", ["text": "Lost?", "author": "A", "version": "1", "csrf_token": token])
        #expect(save.status == .internalServerError)
        #expect(save.text.contains("<!doctype html>"))
        #expect(save.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(save.text.contains("store closed") == isDevelopment, "internals only in development")
        #expect(app.logSink.entries.contains { $0.level == .error && $0.message.contains("POST /quotes/1 failed") })
        #expect(await app.get("/quotes/1").status == .ok, "reading still works")
    }
}

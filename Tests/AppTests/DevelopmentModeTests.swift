import Foundation
import HTTPServer
import TestSupport
import Testing

/// `--dev`: templates are re-read when their files change, and a broken one shows its details
/// on an error page in the layout.
@Suite struct DevelopmentModeTests {
    @Test func brokenTemplateShowsAnErrorPageInTheLayoutUntilFixed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let templates = try RepositoryPaths.copyTemplates(into: directory.url)
        let app = try TestApp(isDevelopment: true, templates: templates)
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
        let app = try TestApp(isDevelopment: false, templates: templates)
        // Compiled once at start: a later edit on disk changes nothing.
        try "{{#never}} closed".write(to: templates.appendingPathComponent("home.mustache"), atomically: false, encoding: .utf8)
        let home = await app.get("/")
        #expect(home.status == .ok)
        #expect(!home.text.contains("home.mustache"))
    }
}

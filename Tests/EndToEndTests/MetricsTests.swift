import App
import Foundation
import HTTPServer
import Store
import TestSupport
import Testing

/// `GET /metrics` (SPEC.md "Pages"): with `--metrics`, every answer is counted by route and
/// status and every store action by kind and outcome, in the Prometheus text format; without it
/// the path is a 404 like any unknown one.
@Suite(.timeLimit(.minutes(2))) struct MetricsTests {
    /// The sample lines of an exposition (no comments), in the order printed.
    func samples(_ exposition: String) -> [String] {
        exposition.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    /// `quotebook_http_requests_total{route="ROUTE",status="STATUS"} COUNT`.
    func requests(_ route: String, _ status: String, _ count: Int) -> String {
        "quotebook_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)"
    }

    @Test func countsEveryAnswerOfTheCoordinatorTreeByRouteAndStatus() async throws {
        let app = try await TestApp(metrics: true)
        let metrics = try #require(app.metrics)
        var visitor = app.browser()
        let home = await visitor.get("/")
        let tag = try #require(home.headers["ETag"])
        #expect(await visitor.get("/", headers: ["If-None-Match": tag]).status == .notModified)
        #expect(await visitor.get("/quotes/1/edit").status == .seeOther)
        #expect(await visitor.get("/nowhere").status == .notFound)
        #expect(await visitor.send(HTTPRequest(method: .put, target: "/quotes/1", headers: ["Host": "test"])).status == .methodNotAllowed)
        #expect(await visitor.get("/site.css").status == .ok)
        #expect(await visitor.get("/%FF").status == .notFound)
        #expect(await visitor.send(HTTPRequest(method: .head, target: "/healthz", headers: ["Host": "test"])).status == .ok)

        var ada = try await app.signedIn("ada")
        await app.store.close()
        #expect(try await ada.submit("/quotes/1/favorite", [:]).status == .internalServerError)

        #expect(
            metrics.requests.nonZero().map { "\($0.route.value) \($0.status) \($0.count)" } == [
                "accounts_sign_up 303 1", "accounts_sign_up_form 200 1", "quotes_edit 303 1", "quotes_favourite 500 1",
                "quotes_home 200 2", "quotes_home 304 1", "rejected 404 1", "static_file 200 1", "system_health 200 1",
                "unmatched 404 1", "unmatched 405 1",
            ])
        #expect(metrics.actions.value("sign_up", .applied) == 1)
    }

    @Test func aLiveServerShowsExactlyTheRequestsAndActionsItSaw() async throws {
        let app = try await TestApp(metrics: true)
        let live = try LiveServer(responder: app.coordinator)
        var visitor = SocketBrowser(port: live.port)
        #expect(try await visitor.get("/").status == 200)
        #expect(try await visitor.get("/nowhere").status == 404)
        let wrong = try await visitor.submit("/login", [("username", "ada"), ("password", "not the password")], formPage: "/login")
        #expect(wrong.status == 401)
        var ada = SocketBrowser(port: live.port)
        #expect(try await ada.signUp("ada").status == 303)
        let edit = [("text", "Simplicity is prerequisite for reliability."), ("author", "Dijkstra"), ("version", "1")]
        #expect(try await ada.submit("/quotes/1", edit, formPage: "/quotes/1/edit").status == 303)
        #expect(try await ada.submit("/quotes/1", edit, formPage: "/quotes/1/edit").status == 409)
        let malformed = try live.connect()
        #expect(try await malformed.exchange("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").status == 400, "no Host")
        let head = try await live.connect().exchange("HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)

        let scrape = try await visitor.get("/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(scrape.header("Cache-Control") == "no-store")
        #expect(head.header("Content-Type") == scrape.header("Content-Type"))
        #expect(scrape.text.contains("# TYPE quotebook_http_requests_total counter\n"))
        #expect(scrape.text.contains("# TYPE quotebook_actions_total counter\n"))
        #expect(
            samples(scrape.text) == [
                requests("accounts_sign_in", "401", 1),
                requests("accounts_sign_in_form", "200", 1),
                requests("accounts_sign_up", "303", 1),
                requests("accounts_sign_up_form", "200", 1),
                requests("quotes_edit", "200", 2),
                requests("quotes_home", "200", 1),
                requests("quotes_update", "303", 1),
                requests("quotes_update", "409", 1),
                requests("rejected", "400", 1),
                requests("system_metrics", "200", 1),
                requests("unmatched", "404", 1),
                #"quotebook_actions_total{kind="edit_quote",outcome="applied"} 1"#,
                #"quotebook_actions_total{kind="edit_quote",outcome="refused",reason="stale_version"} 1"#,
                #"quotebook_actions_total{kind="sign_up",outcome="applied"} 1"#,
                #"quotebook_mail_total{outcome="sent"} 0"#,
                #"quotebook_mail_total{outcome="retried"} 0"#,
                #"quotebook_mail_total{outcome="failed"} 0"#,
            ])
        await live.stop()
    }

    @Test func withoutTheOptionMetricsIsTheNotFoundPage() async throws {
        let app = try await TestApp()
        #expect(app.metrics == nil)
        let live = try LiveServer(responder: app.coordinator)
        var browser = SocketBrowser(port: live.port)
        let response = try await browser.get("/metrics")
        #expect(response.status == 404)
        #expect(response.text.contains("Page not found"))
        #expect(!response.text.contains("quotebook_http_requests_total"))
        await live.stop()
    }

    @Test func theExecutableServesMetricsWhenTheEnvironmentAsks() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let quotebook = try QuotebookProcess(
            arguments: ["--port", "0", "--root", RepositoryPaths.root.path] + (try await TestBackend.current().storageArguments(data: data.url)),
            environment: ["QUOTEBOOK_METRICS": "1"])
        try await quotebook.waitUntilListening()
        var browser = SocketBrowser(port: try #require(quotebook.port))
        #expect(try await browser.get("/healthz").status == 200)
        #expect(try await browser.signUp("ada").status == 303)
        let scrape = try await browser.get("/metrics")
        #expect(scrape.status == 200)
        #expect(samples(scrape.text).contains(requests("system_health", "200", 1)))
        #expect(samples(scrape.text).contains(#"quotebook_actions_total{kind="sign_up",outcome="applied"} 1"#))
        #expect(await quotebook.stop() == 0)
    }
}

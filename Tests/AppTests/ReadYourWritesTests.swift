import App
import Foundation
import HTTPServer
import Logging
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// Read-your-writes across instances on one PostgreSQL journal (two apps in this process): the
/// page after a save, asked of an instance that has not heard of the save, still shows it,
/// because the save's answer carries the `quotebook_seen` cookie and that instance catches up
/// first. With SQLite the cookie is neither set nor read.
@Suite(.timeLimit(.minutes(3)))
struct ReadYourWritesTests {
    static let databaseURL = TestBackend.databaseURLText

    /// A journal whose notifications and polls never reach its store, as though all were lost:
    /// only a catch-up the app asks for brings it others' saves.
    final class DeafJournal: JournalWrapper {
        let inner: any JournalStorage
        init(_ inner: PostgresJournal) { self.inner = inner }
        func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool {
            inner.followAppends(waking: AsyncStream.makeStream(of: Int64?.self).continuation)
        }
    }

    /// Two instances on a fresh schema: the first hears the log, the second is deaf.
    static func withInstances(_ body: (TestApp, TestApp) async throws -> Void) async throws {
        let url = try PostgresURL(parsing: try #require(databaseURL))
        let schema = "qb_ryw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let open = { @Sendable () throws -> PostgresJournal in
            try PostgresJournal(url: url, schema: schema, pollInterval: .seconds(60), logger: .discarding())
        }
        // One book: its instances share its secret, which signs the cookie.
        let secret = SecureRandom.bytes(32)
        let first = try await TestApp(sharedJournal: { try open() }, bookSecret: secret)
        let second = try await TestApp(sharedJournal: { DeafJournal(try open()) }, bookSecret: secret)
        do {
            try await body(first, second)
        } catch {
            Issue.record(error)
        }
        await first.store.close()
        await second.store.close()
        let client = PostgresClient(url: url)
        try await client.query("DROP SCHEMA \"\(schema)\" CASCADE")
        await client.close()
    }

    static func request(_ target: String, cookie: String) -> HTTPRequest {
        HTTPRequest(method: .get, target: target, headers: ["Host": "test", "Cookie": cookie])
    }

    @Test(.enabled(if: databaseURL != nil, Comment(rawValue: TestBackend.postgresSkipReason)))
    func thePageAfterASaveOnAnotherInstanceShowsTheSave() async throws {
        try await Self.withInstances { first, second in
            var browser = first.browser()
            let saved = try await browser.submit(
                "/signup",
                ["username": "ada", "display_name": "Ada", "password": TestApp.password, "password_confirmation": TestApp.password])
            #expect(saved.status == .seeOther)
            let cookie = try #require(saved.headers.values(for: "Set-Cookie").first { $0.hasPrefix("quotebook_seen=") })
            #expect(cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Lax") && cookie.contains("; Path=/"))
            let value = String(cookie.dropFirst("quotebook_seen=".count).prefix { $0 != ";" })
            let seen = try #require(Int64(value.prefix { $0.isNumber }))
            #expect(seen == first.store.appliedJournalSequence)
            #expect(second.store.appliedJournalSequence < seen)

            // Without the cookie, or with its position but not its code, the deaf instance does
            // not know the account yet.
            #expect(await second.get("/users/ada").status == .notFound)
            #expect(await second.respond(Self.request("/users/ada", cookie: "quotebook_seen=\(seen)")).status == .notFound)
            let request = Self.request("/users/ada", cookie: "quotebook_seen=\(value)")
            #expect(second.coordinator.immediateResponse(to: request) == nil)
            let page = await second.respond(request)
            #expect(page.status == .ok)
            #expect(page.text.contains("Ada"))
            #expect(second.store.appliedJournalSequence >= seen)
        }
    }

    @Test(
        .enabled(if: databaseURL != nil, Comment(rawValue: TestBackend.postgresSkipReason)),
        arguments: ["", "abc", "12a", "-5", "+5", " 5", "1234567890123456789", String(repeating: "9", count: 40)])
    func aMalformedSeenCookieIsIgnored(_ value: String) async throws {
        try await Self.withInstances { first, second in
            _ = first
            let request = Self.request("/", cookie: "quotebook_seen=\(value)")
            #expect(second.coordinator.immediateResponse(to: request) != nil)
        }
    }

    @Test func withSQLiteTheCookieIsNeitherSetNorRead() async throws {
        let app = try await TestApp(backend: .sqlite)
        var browser = app.browser()
        let saved = try await browser.submit(
            "/signup",
            ["username": "ada", "display_name": "Ada", "password": TestApp.password, "password_confirmation": TestApp.password])
        #expect(saved.status == .seeOther)
        #expect(!saved.headers.values(for: "Set-Cookie").contains { $0.hasPrefix("quotebook_seen=") })
        let request = Self.request("/", cookie: "quotebook_seen=999999")
        #expect(app.coordinator.immediateResponse(to: request) != nil)
        await app.close()
    }
}

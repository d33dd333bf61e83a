import App
import Foundation
import HTTPServer
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// The `quotebook_seen` cookie is believed only when this book signed it: a forged position costs
/// nothing — no wait, no catch-up, no warning — while a signed one is still waited for.
@Suite(.timeLimit(.minutes(3)))
struct SeenWriteCookieTests {
    static let secret = Array("the book's secret, 32 bytes long".utf8)
    static let cookie = SeenWriteCookie(bookSecret: secret, names: AppCookies(isSecure: false))

    static func cookies(_ header: String) -> HTTPCookies {
        HTTPCookies(["Cookie": header])
    }

    @Test(arguments: [Int64(1), 42, 999_999_999_999_999_999])
    func aPositionThisBookSignedReadsBack(_ sequence: Int64) {
        let value = Self.cookie.value(for: sequence)
        #expect(value.hasPrefix("\(sequence)."))
        #expect(Self.cookie.sequence(in: Self.cookies("quotebook_seen=\(value)")) == sequence)
    }

    @Test func forgedValuesAreNotBelieved() {
        let signed42 = Self.cookie.value(for: 42)
        let code42 = String(signed42.dropFirst(3))
        let otherBook = SeenWriteCookie(bookSecret: Array("another book's secret, 32 bytes!".utf8), names: AppCookies(isSecure: false))
        let forged = [
            "999999999999999999", "42", "42.", ".\(code42)", "43.\(code42)", "042.\(code42)", "42.\(code42)x",
            "42.\(code42.dropLast())", "42.\(code42.lowercased())", otherBook.value(for: 42), "4 2.\(code42)",
        ]
        for value in forged where value != signed42 {
            #expect(Self.cookie.sequence(in: Self.cookies("quotebook_seen=\(value)")) == nil, "\(value)")
        }
    }

    @Test func withSecureCookiesOnlyTheHostPrefixedNameIsRead() {
        let secure = SeenWriteCookie(bookSecret: Self.secret, names: AppCookies(isSecure: true))
        let value = secure.value(for: 7)
        #expect(value == Self.cookie.value(for: 7), "the name changes, not the value")
        #expect(secure.sequence(in: Self.cookies("__Host-quotebook_seen=\(value)")) == 7)
        #expect(secure.sequence(in: Self.cookies("quotebook_seen=\(value)")) == nil)
    }

    /// A SQLite journal that says other processes append to it too (none does): the store then
    /// follows it, as on PostgreSQL, so the app reads the seen cookie, without a database server.
    final class SharedSQLiteJournal: JournalWrapper {
        let inner: any JournalStorage
        init() throws { inner = try SQLiteJournal(path: ":memory:") }
        func followAppends(waking wake: AsyncStream<Int64?>.Continuation) -> Bool { true }
    }

    static func request(_ target: String, seen: String) -> HTTPRequest {
        HTTPRequest(method: .get, target: target, headers: ["Host": "test", "Cookie": "quotebook_seen=\(seen)"])
    }

    @Test func aForgedPositionIsAnsweredAtOnceFromThePageCacheWithoutAWarning() async throws {
        let app = try await TestApp(sharedJournal: { try SharedSQLiteJournal() }, bookSecret: Self.secret)
        #expect(app.store.sharesJournal)
        let head = app.store.appliedJournalSequence
        let forgeries = ["999999999999999999", "999999999999999999.AAAAAAAAAAAAAAAAAAAAAA", "\(head + 1)"]
        for forged in forgeries {
            // On the event loop: no catch-up first, and the signed-out page comes from the cache.
            #expect(app.coordinator.immediateResponse(to: Self.request("/", seen: forged))?.status == .ok, "\(forged)")
            let clock = ContinuousClock()
            let start = clock.now
            let page = await app.respond(Self.request("/quotes", seen: forged))
            #expect(page.status == .ok)
            #expect(clock.now - start < .milliseconds(500), "\(forged)")
        }
        #expect(app.coordinator.cachedPageCount > 0)
        #expect(!app.logSink.entries.contains { $0.level >= .warning }, "\(app.logSink.entries.map(\.message))")
        await app.close()
    }

    @Test func aSignedPositionAheadOfThisInstanceIsStillWaitedFor() async throws {
        let app = try await TestApp(sharedJournal: { try SharedSQLiteJournal() }, bookSecret: Self.secret)
        let ahead = Self.cookie.value(for: app.store.appliedJournalSequence + 1)
        #expect(app.coordinator.immediateResponse(to: Self.request("/", seen: ahead)) == nil, "it catches up first")
        let clock = ContinuousClock()
        let start = clock.now
        let page = await app.respond(Self.request("/", seen: ahead))
        #expect(page.status == .ok)
        // No instance ever appends that entry here, so the wait runs to its end, and says so.
        #expect(clock.now - start >= SeenWriteCookie.catchUpTimeout)
        #expect(app.logSink.entries.contains { $0.level == .warning && $0.message.contains("caught up") })
        // A position it has applied costs nothing.
        let applied = Self.cookie.value(for: app.store.appliedJournalSequence)
        #expect(app.coordinator.immediateResponse(to: Self.request("/", seen: applied))?.status == .ok)
        await app.close()
    }
}

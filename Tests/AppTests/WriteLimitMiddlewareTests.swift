import Basics
import Foundation
import HTTPServer
import Logging
import Store
import Synchronization
import Templates
import TestSupport
import Testing

@testable import App

/// The write limit's link on its own (``WriteLimitMiddleware``), with a flow behind it that can
/// fail and a clock that moves: a failure of ours gives the counts back, and the window lets
/// writes in again as it passes.
@Suite struct WriteLimitMiddlewareTests {
    static let start = Date(timeIntervalSince1970: 1_795_330_800)

    /// What the chain's last link answers: a 303; or a failure of the server's own, as the
    /// real flow answers one (``FlowHandler`` turns an error into the 503 page: `.answering`)
    /// or as a link might let one through (`.throwing`).
    final class Flow: RequestHandler {
        enum Failure { case none, answering, throwing }

        let failure = Mutex(Failure.none)
        let calls = Mutex(0)

        struct Unavailable: Error {}

        func handle(_ context: RequestContext) -> Step<HTTPResponse> {
            calls.withLock { $0 += 1 }
            let failure = failure.withLock { $0 }
            return .later {
                switch failure {
                case .none: return .seeOther("/quotes/1")
                case .answering: return HTTPResponse(status: .serviceUnavailable, headers: ["Retry-After": "1"])
                case .throwing: throw Unavailable()
                }
            }
        }
    }

    /// The time the link reads, moved by the test.
    final class Clock: Sendable {
        let now = Mutex(WriteLimitMiddlewareTests.start)
    }

    struct Fixture {
        let chain: RequestChain
        let flow = Flow()
        let clock = Clock()

        init(perAccount: Int, perClient: Int, storage: any SignInFailureStorage = InMemorySignInFailures(), logger: Logger = .discarding()) throws {
            var limits = WriteLimits()
            limits.perAccount = perAccount
            limits.perClient = perClient
            let renderer = PageRenderer(
                source: .compiled(try TemplateLibrary(directory: RepositoryPaths.templates)), showsErrorDetails: false,
                logger: .discarding())
            let clock = clock
            chain = RequestChain(
                [WriteLimitMiddleware(limits: limits, storage: storage, renderer: renderer, now: { clock.now.withLock { $0 } }, logger: logger)],
                then: flow)
        }

        /// A signed-in POST /quotes by user `id` from `address`: its status and `Retry-After`, or
        /// nil when it threw.
        func write(as id: Int, from address: String = "192.0.2.1") async -> Answer? {
            guard let response = await response(as: id, from: address) else { return nil }
            return Answer(status: response.status.code, retryAfter: response.headers["Retry-After"])
        }

        /// The response to a signed-in POST /quotes carrying `form` (URL-encoded), or nil when it threw.
        func response(as id: Int, from address: String = "192.0.2.1", form: String = "") async -> HTTPResponse? {
            var request = HTTPRequest(
                method: .post, target: "/quotes", headers: ["Host": "test", "Content-Type": "application/x-www-form-urlencoded"],
                body: Array(form.utf8))
            request.client = IPAddress(address)
            let context = RequestContext(request)
            context.visitor = Visitor(
                user: User(id: UserID(id), username: Username("user\(id)")!, displayName: "User \(id)", joinedAt: WriteLimitMiddlewareTests.start),
                csrfToken: "token")
            if let submitted = SubmittedForm(request) { context.form = submitted }
            return try? await chain.handle(context).value()
        }

        func advance(by seconds: TimeInterval) {
            clock.now.withLock { $0 += seconds }
        }
    }

    struct Answer: Equatable {
        let status: Int
        var retryAfter: String?
    }

    static let written = Answer(status: 303)

    @Test func aFailureOfOursGivesTheCountsBack() async throws {
        let fixture = try Fixture(perAccount: 2, perClient: 2)
        fixture.flow.failure.withLock { $0 = .answering }
        for _ in 0..<5 { #expect(await fixture.write(as: 1)?.status == 503) }
        fixture.flow.failure.withLock { $0 = .throwing }
        for _ in 0..<5 { #expect(await fixture.write(as: 1) == nil, "the flow's failure goes up the chain") }
        fixture.flow.failure.withLock { $0 = .none }
        #expect(await fixture.write(as: 1) == Self.written)
        #expect(await fixture.write(as: 1) == Self.written)
        #expect(await fixture.write(as: 1)?.status == 429)
        #expect(fixture.flow.calls.withLock { $0 } == 12, "the refused write never reached the flow")
    }

    /// Counts in storage that cannot take one back (the database gone as the write failed).
    struct UnreleasingStorage: SignInFailureStorage {
        let base = InMemorySignInFailures()

        func reserveAttempts(
            _ count: Int, in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
        ) async throws(StoreError) -> AttemptReservation {
            base.reserveAttempts(count, in: namespace, for: key, at: date, forgettingBefore: windowStart, limit: limit)
        }
        func releaseAttempts(_ count: Int, in namespace: String, for key: String, at date: Date) async throws(StoreError) {
            throw .accountStorageClosed(operation: "releaseAttempts")
        }
        func lock(in namespace: String, _ key: String, until date: Date) async throws(StoreError) {
            base.lock(in: namespace, key, until: date)
        }
        func clearAttempts(in namespace: String, for key: String) async throws(StoreError) {
            base.clearAttempts(in: namespace, for: key)
        }
    }

    /// Counts in storage that cannot reach the address's counts (the database gone between the
    /// two reservations).
    struct AddressFailingStorage: SignInFailureStorage {
        let base = InMemorySignInFailures()

        func reserveAttempts(
            _ count: Int, in namespace: String, for key: String, at date: Date, forgettingBefore windowStart: Date, limit: Int
        ) async throws(StoreError) -> AttemptReservation {
            if namespace == WriteLimitMiddleware.clientNamespace { throw .accountStorageClosed(operation: "reserveAttempts") }
            return base.reserveAttempts(count, in: namespace, for: key, at: date, forgettingBefore: windowStart, limit: limit)
        }
        func releaseAttempts(_ count: Int, in namespace: String, for key: String, at date: Date) async throws(StoreError) {
            base.releaseAttempts(count, in: namespace, for: key, at: date)
        }
        func lock(in namespace: String, _ key: String, until date: Date) async throws(StoreError) {
            base.lock(in: namespace, key, until: date)
        }
        func clearAttempts(in namespace: String, for key: String) async throws(StoreError) {
            base.clearAttempts(in: namespace, for: key)
        }
    }

    /// When the address's counts cannot be reached, the write fails and the account's counts,
    /// all its weight, are given back.
    @Test func anAddressReservationThatFailsGivesTheAccountsCountsBack() async throws {
        let storage = AddressFailingStorage()
        let fixture = try Fixture(perAccount: 4, perClient: 100, storage: storage)
        for _ in 0..<3 { #expect(await fixture.response(as: 1, form: Self.heavy) == nil, "the storage's failure goes up the chain") }
        #expect(fixture.flow.calls.withLock { $0 } == 0, "nothing was written")
        let held = storage.base.reserveAttempts(
            4, in: WriteLimitMiddleware.accountNamespace, for: "1", at: WriteLimitMiddlewareTests.start,
            forgettingBefore: WriteLimitMiddlewareTests.start.addingTimeInterval(-600), limit: 4)
        #expect(held == .counted(4), "the account's whole allowance is free")
    }

    /// A give-back the storage refuses is reported, and the write still counts until the window
    /// passes it.
    @Test func aGiveBackThatFailsIsReportedAndStillCounts() async throws {
        let log = InMemoryLogSink()
        let fixture = try Fixture(perAccount: 1, perClient: 10, storage: UnreleasingStorage(), logger: Logger(label: "app", sink: log))
        fixture.flow.failure.withLock { $0 = .answering }
        #expect(await fixture.write(as: 1)?.status == 503)
        #expect(log.entries.map(\.level) == [.warning])
        #expect(log.entries.first?.message.contains("still counts against its account or address") == true)
        fixture.flow.failure.withLock { $0 = .none }
        #expect(await fixture.write(as: 1)?.status == 429)
        fixture.advance(by: WriteLimits().window)
        #expect(await fixture.write(as: 1) == Self.written)
        #expect(log.entries.count == 1)
    }

    /// The refused form's text comes back on the 429 page, escaped, in boxes to copy from, so
    /// nothing the person wrote is lost; a form with nothing typed shows no such section.
    @Test func theRefusalShowsBackWhatThePersonWrote() async throws {
        let fixture = try Fixture(perAccount: 1, perClient: 10)
        #expect(await fixture.write(as: 1) == Self.written)
        let form = "text=Line+one%0D%0A%3Cscript%3Ealert(1)%3C%2Fscript%3E+%26+more&author=Ada+%22A.%22+Lovelace&version=3&csrf_token=token"
        let refused = try #require(await fixture.response(as: 1, form: form))
        #expect(refused.status.code == 429)
        let page = String(decoding: refused.body, as: UTF8.self)
        #expect(page.contains("What you wrote"))
        #expect(page.contains(#"<textarea id="typed-text" rows="2" readonly>Line one"#))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</textarea>"))
        #expect(!page.contains("<script>alert(1)"))
        #expect(page.contains(#"<textarea id="typed-author" rows="1" readonly>Ada &quot;A.&quot; Lovelace</textarea>"#))
        #expect(!page.contains("typed-display-name") && !page.contains(">3</textarea>"), "only typed text is shown")
        let untyped = try #require(await fixture.response(as: 1, form: "text=+%0A+&csrf_token=token"))
        #expect(untyped.status.code == 429)
        #expect(!String(decoding: untyped.body, as: UTF8.self).contains("What you wrote"), "blank text is not shown back")
    }

    /// A form's weight: one for each 4 KiB of text it could keep, begun, at least one; past a
    /// field's most nothing is kept, so it weighs no more than that most.
    @Test func aWriteWeighsTheTextItCouldKeep() throws {
        func weight(_ fields: [(String, String)]) throws -> Int {
            let body = fields.map { "\($0)=\(try! #require($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)))" }
                .joined(separator: "&")
            let request = HTTPRequest(
                method: .post, target: "/quotes", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8))
            return WriteLimitMiddleware.weight(of: .quotes(.create), form: try #require(SubmittedForm(request)))
        }
        let heavy = String(repeating: "e" + String(repeating: "\u{301}", count: 19), count: 1_000)  // 39 bytes a character
        #expect(try weight([]) == 1, "a favourite or a deletion")
        #expect(try weight([("text", String(repeating: "a", count: 1_000)), ("author", "Ada")]) == 1)
        #expect(try weight([("text", String(repeating: "\u{1F600}", count: 1_000)), ("author", "Ada")]) == 1, "4,000 bytes")
        #expect(try weight([("text", String(repeating: "a", count: 4_096))]) == 1)
        #expect(try weight([("text", String(repeating: "a", count: 4_097))]) == 2)
        #expect(try weight([("text", heavy), ("author", "Ada")]) == 10, "39,003 bytes")
        #expect(try weight([("text", String(repeating: "a", count: 900_000)), ("author", String(repeating: "b", count: 90_000))]) == 11,
            "capped at 40,000 and 4,000 bytes")
        #expect(try weight([("display_name", String(repeating: "a", count: 5_000))]) == 1, "capped at 2,000 bytes")
        #expect(WriteLimitMiddleware.weight(of: .quotes(.restore(QuoteID(1))), form: SubmittedForm()) == 11, "a version's text, unseen")
    }

    /// A heavy write takes its whole weight from the allowance, or nothing: refused, it takes
    /// none of it, and lighter writes still fit.
    @Test func aHeavyWriteCountsItsWeightOrNothing() async throws {
        let fixture = try Fixture(perAccount: 14, perClient: 100)
        let heavy = Self.heavy
        let light = Self.light
        for _ in 0..<2 { #expect(await fixture.response(as: 1, form: heavy)?.status.code == 303) }
        #expect(await fixture.response(as: 1, form: light)?.status.code == 303)  // 9 of 14
        #expect(await fixture.response(as: 1, form: heavy)?.status.code == 303)  // 13
        #expect(await fixture.response(as: 1, form: heavy)?.status.code == 429, "4 more do not fit in 1")
        #expect(await fixture.response(as: 1, form: light)?.status.code == 303, "the refused write's part was given back")
        #expect(await fixture.response(as: 1, form: light)?.status.code == 429)
        #expect(fixture.flow.calls.withLock { $0 } == 5)
        // The address's allowance weighs the same way.
        let byAddress = try Fixture(perAccount: 100, perClient: 5)
        #expect(await byAddress.response(as: 1, form: heavy)?.status.code == 303)
        #expect(await byAddress.response(as: 2, form: heavy)?.status.code == 429, "another account, the same address")
        #expect(await byAddress.response(as: 2, form: light)?.status.code == 303)
        #expect(await byAddress.response(as: 3, form: light)?.status.code == 429)
    }

    static let heavy = "text=" + String(repeating: "a", count: 3 * 4_096 + 100) + "&author=Ada&csrf_token=token"  // 4 writes
    static let light = "text=Short&author=Ada&csrf_token=token"

    /// A failure of ours gives a heavy write's whole weight back, as does the address's refusal
    /// to the account.
    @Test func aHeavyWriteThatFailsOrIsRefusedGivesAllItsCountsBack() async throws {
        let fixture = try Fixture(perAccount: 4, perClient: 100)
        fixture.flow.failure.withLock { $0 = .answering }
        for _ in 0..<3 { #expect(await fixture.response(as: 1, form: Self.heavy)?.status.code == 503) }
        fixture.flow.failure.withLock { $0 = .throwing }
        for _ in 0..<3 { #expect(await fixture.response(as: 1, form: Self.heavy) == nil) }
        fixture.flow.failure.withLock { $0 = .none }
        #expect(await fixture.response(as: 1, form: Self.heavy)?.status.code == 303)
        #expect(await fixture.response(as: 1, form: Self.light)?.status.code == 429)

        let shared = try Fixture(perAccount: 8, perClient: 4)
        #expect(await shared.response(as: 1, from: "192.0.2.1", form: Self.heavy)?.status.code == 303)
        #expect(await shared.response(as: 1, from: "192.0.2.1", form: Self.heavy)?.status.code == 429, "the address is full")
        #expect(await shared.response(as: 1, from: "192.0.2.2", form: Self.heavy)?.status.code == 303, "the account got its 4 back")
        #expect(await shared.response(as: 1, from: "192.0.2.3", form: Self.light)?.status.code == 429, "and has used its 8")
    }

    /// `Retry-After` for a heavy write is when enough counts leave the window for all of it; a
    /// write heavier than the whole allowance counts as the whole allowance, so it can go ahead.
    @Test func aHeavyWriteWaitsForRoomForAllOfItAndNeverForever() async throws {
        let fixture = try Fixture(perAccount: 5, perClient: 100)
        for step in 0..<3 {
            #expect(await fixture.response(as: 1, form: Self.light)?.status.code == 303)
            if step < 2 { fixture.advance(by: 100) }
        }
        fixture.advance(by: 100)  // t = 300: 3 held, 4 wanted, 5 allowed: the write of t = 100 must leave
        let refused = try #require(await fixture.response(as: 1, form: Self.heavy))
        #expect(refused.status.code == 429 && refused.headers["Retry-After"] == "400")
        fixture.advance(by: 400)
        #expect(await fixture.response(as: 1, form: Self.heavy)?.status.code == 303)

        let small = try Fixture(perAccount: 3, perClient: 100)
        #expect(await small.response(as: 1, form: Self.heavy)?.status.code == 303, "4 counted as the whole 3")
        #expect(await small.response(as: 1, form: Self.light)?.status.code == 429)
        small.advance(by: WriteLimits().window)
        #expect(await small.response(as: 1, form: Self.heavy)?.status.code == 303)
    }

    /// A field past its most is not shown back: it could not have been kept, and escaped it
    /// could make a page several times the request.
    @Test func theRefusalShowsNoFieldPastItsMost() async throws {
        let fixture = try Fixture(perAccount: 1, perClient: 10)
        #expect(await fixture.write(as: 1) == Self.written)
        let tooLong = String(repeating: "%22", count: QuoteDraft.maximumTextBytes + 1)
        let refused = try #require(await fixture.response(as: 1, form: "text=\(tooLong)&author=Ada&csrf_token=token"))
        let page = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status.code == 429 && refused.body.count < 20_000)
        #expect(!page.contains("typed-text") && page.contains(#"readonly>Ada</textarea>"#))
    }

    @Test func theWindowLetsWritesInAgainAndRetryAfterShrinks() async throws {
        let fixture = try Fixture(perAccount: 2, perClient: 100)
        #expect(await fixture.write(as: 1) == Self.written)
        fixture.advance(by: 200)
        #expect(await fixture.write(as: 1) == Self.written)
        fixture.advance(by: 100)
        #expect(await fixture.write(as: 1) == Answer(status: 429, retryAfter: "300"))
        #expect(await fixture.write(as: 2) == Self.written, "another account writes")
        fixture.advance(by: 250)
        #expect(await fixture.write(as: 1) == Answer(status: 429, retryAfter: "50"))
        fixture.advance(by: 50)  // the first write leaves the window
        #expect(await fixture.write(as: 1) == Self.written)
        #expect(await fixture.write(as: 1) == Answer(status: 429, retryAfter: "200"))
        fixture.advance(by: 200)  // the second leaves it
        #expect(await fixture.write(as: 1) == Self.written)
    }

    /// Every POST route, and whether it counts: a write with no limit of its own does; a route
    /// with its own limit, a moderator's, or one that keeps nothing that grows does not.
    @Test func theWritesCountedAreTheBookWritesWithNoLimitOfTheirOwn() throws {
        let id = QuoteID(1)
        let name = try #require(Username("ada"))
        let counted: [(AppRoute, Bool)] = [
            (.quotes(.create), true), (.quotes(.update(id)), true), (.quotes(.favourite(id)), true), (.quotes(.delete(id)), true),
            (.quotes(.restore(id)), true), (.quotes(.report(id)), false),
            (.profiles(.updateName), true), (.profiles(.removePhoto), true), (.profiles(.updatePhoto), false),
            (.profiles(.changePassword), false), (.profiles(.changeEmail), false),
            (.profiles(.endSession(SessionHandle(id: Array(repeating: 1, count: 32)))), false), (.profiles(.endOtherSessions), false),
            (.profiles(.deleteAccount), false),
            (.accounts(.signUp), false), (.accounts(.signIn), false), (.accounts(.signOut), false), (.accounts(.forgot), false),
            (.accounts(.reset), false), (.accounts(.verify), false),
            (.moderation(.dismiss(ReportID(1))), false), (.moderation(.hide(id)), false), (.moderation(.unhide(id)), false),
            (.moderation(.suspend(name)), false), (.moderation(.unsuspend(name)), false), (.moderation(.revert(name)), false),
        ]
        for (route, counts) in counted {
            #expect(route.method == .post, "\(route) is a POST")
            #expect(route.isMemberWrite == counts, "\(route)")
        }
        #expect(!AppRoute.quotes(.list(page: 1)).isMemberWrite && !AppRoute.profiles(.edit).isMemberWrite, "no GET counts")
    }
}

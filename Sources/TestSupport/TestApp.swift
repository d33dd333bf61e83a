package import App
package import Basics
import Composition
package import Foundation
package import HTTPServer
package import Logging
package import Mail
package import Store
import StoreBackend

/// The app built by ``AppAssembly``, as `main.swift` builds it (start-up repairs included), but
/// on a database the test chooses, with a fixed clock, mail kept in ``mailbox``, and the
/// repository's templates (or a copy, for `--dev` reloading) and public files.
///
/// The database is the run's ``TestBackend``: SQLite in memory (or the file at `journalPath`),
/// or with `QUOTEBOOK_TEST_BACKEND=postgres` a fresh PostgreSQL schema (the same one again for
/// the same `journalPath`), so every suite built on it runs on both backends. A test that wants
/// one instance of several on a shared journal passes `sharedJournal` (and the same
/// `bookSecret` to each, as instances of one book read it from their shared database); one
/// about a backend's own behaviour names it as `backend`.
///
/// The storage is closed by ``close()``, or when the last copy of the app is gone.
package struct TestApp: Sendable {
    package let store: Store
    package let sessionStorage: any SessionStorage
    package let photoStorage: any PhotoStorage
    package let coordinator: AppCoordinator
    package let logSink: InMemoryLogSink
    package let hashingPool: BlockingThreadPool
    /// The counters, when the app was made with `metrics: true` (as `--metrics`).
    package let metrics: MetricsRegistry?
    /// What this app runs on.
    package let backend: TestBackend
    /// Email addresses, links and the outbox.
    package let mailStorage: any MailStorage
    /// Where this app's mail goes: kept, for tests to read (``deliverMail()``).
    package let mailbox: RecordingMailTransport
    /// The outbox's sender; tests run it with ``deliverMail()`` rather than in the background.
    package let mailSender: MailSender
    private let resources: Resources

    /// The clock every test app uses: 2026-11-22 07:00 UTC.
    package static let fixedNow = Date(timeIntervalSince1970: 1_795_330_800)

    /// The password ``signUp(_:displayName:)`` gives every account.
    package static let password = "correct horse battery"

    package init(
        journalPath: String? = nil, seed: [AppAction] = SeedContent.actions(at: TestApp.fixedNow),
        isDevelopment: Bool = false, templates: URL = RepositoryPaths.templates, secureCookies: Bool = false,
        now: @escaping @Sendable () -> Date = { TestApp.fixedNow }, hashingQueueLimit: Int = 64,
        passwordCrypt: PasswordCryptClient = .yescrypt, accountLimits: AccountLimits = AccountLimits(),
        writeLimits: WriteLimits = WriteLimits(), metrics: Bool = false,
        live: LiveSettings = LiveSettings(), sharedJournal: (@Sendable () throws -> any JournalStorage)? = nil,
        backend: TestBackend? = nil, bookSecret: [UInt8] = SecureRandom.bytes(32), photoProcessing: PhotoProcessing = PhotoProcessing()
    ) async throws {
        logSink = InMemoryLogSink()
        let logger = Logger(label: "test", level: .debug, sink: logSink)
        let backend = try backend ?? TestBackend.current()
        self.backend = backend
        var options = AppOptions()
        options.isDevelopment = isDevelopment
        options.secureCookies = secureCookies
        options.accountLimits = accountLimits
        options.writeLimits = writeLimits
        options.metrics = metrics
        options.hashingThreads = 2
        options.mail.publicURL = PublicURL("https://quotes.example.org")
        let mailbox = RecordingMailTransport()
        var overrides = AppAssembly.Overrides()
        overrides.now = now
        overrides.seed = seed
        overrides.mailTransport = mailbox
        overrides.bookSecret = bookSecret
        // A file's directory is a data directory, with its kept roles, as a server's is.
        if case .sqlite = backend, let journalPath, journalPath != ":memory:" {
            overrides.keptRoles = .at(PendingRoles(dataDirectory: URL(fileURLWithPath: journalPath).deletingLastPathComponent()))
        } else {
            overrides.keptRoles = .nowhere
        }
        overrides.passwordCrypt = passwordCrypt
        overrides.photoProcessing = photoProcessing
        overrides.live = live
        overrides.hashingPoolName = "test-hash"
        overrides.hashingQueueLimit = hashingQueueLimit
        overrides.hashingScheduling = .normal
        overrides.logsActions = false
        let app = try await AppAssembly(
            options: options, templates: templates, publicFiles: RepositoryPaths.publicFiles, logger: logger, overrides: overrides
        ) {
            try await Storage.open(on: backend, journalPath: journalPath, sharedJournal: sharedJournal, logger: logger)
        }
        store = app.store
        sessionStorage = app.accounts.sessions
        photoStorage = app.accounts.photos
        mailStorage = app.accounts.mail
        coordinator = app.coordinator
        hashingPool = app.hashingPool
        self.metrics = app.metrics
        self.mailbox = mailbox
        mailSender = app.mailSender
        resources = Resources { [store = app.store, accounts = app.accounts] in
            await store.close()
            await accounts.close()
        }
    }

    /// Delivers what the outbox holds due now to ``mailbox`` (one pass of the sender, as the
    /// background task would make), and returns every message delivered so far.
    @discardableResult
    package func deliverMail() async -> [MailMessage] {
        await mailSender.drain()
        return mailbox.delivered
    }

    /// Closes the store, then the account storage; on PostgreSQL also drops a fresh schema. Only
    /// the first call does anything.
    package func close() async {
        await resources.close()
    }

    /// Sends `request` through the coordinator tree, as the server would.
    package func respond(_ request: HTTPRequest) async -> HTTPResponse {
        await coordinator.respond(to: request)
    }

    package func get(_ target: String) async -> HTTPResponse {
        await respond(HTTPRequest(method: .get, target: target, headers: ["Host": "test"]))
    }

    /// POSTs `fields` as `application/x-www-form-urlencoded`, with no cookies (so no CSRF token).
    package func post(_ target: String, form fields: KeyValuePairs<String, String>) async -> HTTPResponse {
        await respond(.form(target, fields))
    }

    /// A new browser on this app: no cookies yet.
    package func browser() -> TestBrowser {
        TestBrowser(app: self)
    }

    /// A browser signed in to a new account `username` (password ``password``).
    package func signedIn(_ username: String, displayName: String? = nil) async throws -> TestBrowser {
        var browser = browser()
        let response = try await browser.submit(
            "/signup",
            [
                "username": username, "display_name": displayName ?? username.capitalized, "password": Self.password,
                "password_confirmation": Self.password,
            ])
        guard response.status == .seeOther else {
            throw TestBrowser.Failure("sign-up of \(username) answered \(response.status)")
        }
        return browser
    }
}

/// A client with a cookie jar that drives a ``TestApp`` as a browser would: it keeps the cookies
/// responses set, and fills in the CSRF token of the form it submits from the page the form is on.
package struct TestBrowser: Sendable {
    package let app: TestApp
    package private(set) var cookies = CookieJar()

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    init(app: TestApp) {
        self.app = app
    }

    package mutating func get(_ target: String, headers: HTTPHeaders = [:]) async -> HTTPResponse {
        var request = HTTPRequest(method: .get, target: target, headers: ["Host": "test"])
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return await send(request)
    }

    /// POSTs `fields` with no CSRF token added (the test supplies one, or checks the 403).
    package mutating func post(_ target: String, _ fields: KeyValuePairs<String, String>) async -> HTTPResponse {
        await send(.form(target, fields))
    }

    /// POSTs `fields` plus the CSRF token of the page at `formPage` (default: `target`'s own
    /// page for `/signup` and `/login`, else the home page, whose sign-out form carries it).
    package mutating func submit(_ target: String, _ fields: KeyValuePairs<String, String>, formPage: String? = nil) async throws -> HTTPResponse {
        let token = try await csrfToken(from: formPage ?? (target == "/signup" || target == "/login" ? target : "/"))
        let body = URLEncodedForm.encode(pairs: fields.map { (name: $0.key, value: $0.value) } + [(name: "csrf_token", value: token)])
        return await send(
            HTTPRequest(
                method: .post, target: target, headers: ["Host": "test", "Content-Type": "application/x-www-form-urlencoded"],
                body: Array(body.utf8)))
    }

    /// POSTs a `multipart/form-data` body with one file field and the CSRF token.
    package mutating func upload(_ target: String, field: String, filename: String, contentType: String, bytes: [UInt8]) async throws -> HTTPResponse {
        let token = try await csrfToken(from: "/")
        let body = MultipartBody(token: token, field: field, filename: filename, fileType: contentType, file: bytes)
        return await send(
            HTTPRequest(
                method: .post, target: target, headers: ["Host": "test", "Content-Type": MultipartBody.contentType], body: body.bytes))
    }

    /// The `csrf_token` value in the page at `target`.
    package mutating func csrfToken(from target: String) async throws -> String {
        let page = await get(target).text
        guard let range = page.range(of: "name=\"csrf_token\" value=\"") else {
            throw Failure("no csrf_token field on \(target)")
        }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The `Cookie` header this browser sends, for tests that talk over a socket.
    package var cookieHeader: String { cookies.header }

    /// Sends `request` with this browser's cookies and keeps the cookies the response sets.
    package mutating func send(_ request: HTTPRequest) async -> HTTPResponse {
        var request = request
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookieHeader) }
        let response = await app.respond(request)
        for header in response.headers.values(for: "Set-Cookie") { cookies.store(setCookie: header) }
        return response
    }
}

extension HTTPRequest {
    /// A POST with `fields` encoded as `application/x-www-form-urlencoded`.
    package static func form(_ target: String, _ fields: KeyValuePairs<String, String>) -> HTTPRequest {
        let body = URLEncodedForm.encode(pairs: fields.map { (name: $0.key, value: $0.value) })
        return HTTPRequest(
            method: .post, target: target,
            headers: ["Host": "test", "Content-Type": "application/x-www-form-urlencoded"],
            body: Array(body.utf8)
        )
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
}

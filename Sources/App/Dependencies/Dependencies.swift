package import Basics
package import Foundation
package import HTTPServer
package import Logging
package import Store

/// Everything the app's coordinators and controllers need from outside, built once by the
/// composition root (`main.swift`) or a test, and passed down through initialisers.
package struct Dependencies: Sendable {
    package var store: Store
    /// Sessions and the server's secrets, apart from the journal.
    package var sessionStorage: any SessionStorage
    /// Profile photos by hash.
    package var photoStorage: any PhotoStorage
    /// Failed sign-ins per username, for the throttle: in memory for SQLite (one process), in
    /// the database for PostgreSQL (shared by the instances).
    package var signInFailures: any SignInFailureStorage
    /// Email addresses, mail links and the outbox, and how pages queue mail.
    package var mailroom: Mailroom
    /// The threads that hash passwords (never an event loop or the cooperative pool).
    package var hashingPool: BlockingThreadPool
    /// What those threads run: yescrypt; tests count or hold the checks with a stand-in.
    package var passwordCrypt: PasswordCryptClient
    /// The threads that turn uploads into photos (libvips), with their own bounded queue.
    package var photoProcessing: PhotoProcessing
    /// What one client address may have of sign-in and sign-up, counted in ``signInFailures``.
    package var accountLimits: AccountLimits
    /// What one account and one client address may write to the book, counted in
    /// ``signInFailures`` too (``WriteLimitMiddleware``).
    package var writeLimits: WriteLimits
    /// The book's secret, kept in the database (so tokens survive a restart, and every instance
    /// of one book has the same): CSRF tokens are made with it, and the `quotebook_seen`
    /// cookie's code with a key derived from it (``SeenWriteCookie``).
    package var csrfKey: [UInt8]
    /// `--secure-cookies`: cookies carry `Secure` and the `__Host-` prefix (``AppCookies``; the app
    /// is served over HTTPS by a proxy).
    package var secureCookies: Bool
    /// The current time; tests pass a fixed one.
    package var now: @Sendable () -> Date
    package var templates: PageRenderer.Source
    package var staticFiles: StaticFiles
    /// `--dev`: error pages show details.
    package var isDevelopment: Bool
    package var logger: Logger
    /// `--metrics`: the counters `GET /metrics` shows; nil counts nothing and makes it a 404.
    package var metrics: MetricsRegistry?
    /// Heartbeats of event streams and, with `--dev`, the folders whose changes reload pages.
    package var live: LiveSettings

    package init(
        store: Store, sessionStorage: any SessionStorage, photoStorage: any PhotoStorage,
        signInFailures: any SignInFailureStorage, mailroom: Mailroom, hashingPool: BlockingThreadPool,
        passwordCrypt: PasswordCryptClient = .yescrypt, photoProcessing: PhotoProcessing = PhotoProcessing(), accountLimits: AccountLimits = AccountLimits(),
        writeLimits: WriteLimits = WriteLimits(), csrfKey: [UInt8],
        secureCookies: Bool, now: @escaping @Sendable () -> Date, templates: PageRenderer.Source,
        staticFiles: StaticFiles, isDevelopment: Bool, logger: Logger, metrics: MetricsRegistry? = nil,
        live: LiveSettings = LiveSettings()
    ) {
        self.store = store
        self.sessionStorage = sessionStorage
        self.photoStorage = photoStorage
        self.signInFailures = signInFailures
        self.mailroom = mailroom
        self.hashingPool = hashingPool
        self.passwordCrypt = passwordCrypt
        self.photoProcessing = photoProcessing
        self.accountLimits = accountLimits
        self.writeLimits = writeLimits
        self.csrfKey = csrfKey
        self.secureCookies = secureCookies
        self.now = now
        self.templates = templates
        self.staticFiles = staticFiles
        self.isDevelopment = isDevelopment
        self.logger = logger
        self.metrics = metrics
        self.live = live
    }
}

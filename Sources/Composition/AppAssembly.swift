package import App
package import Basics
package import Foundation
import HTTPServer
package import Logging
package import Mail
package import Store
package import StoreBackend
import Templates

/// The composition root: builds, once, everything the app needs from its options and its
/// storage — the templates, the store (with its middleware), the CSRF secret, the start-up
/// repairs (``StartUpRepairs``), the password-hashing pool, mail (composer, transport, the
/// outbox's sender and the mailroom) and the `Dependencies` the coordinator tree takes.
///
/// `main.swift` builds the server's with the process's options; `TestApp` builds a test's with
/// the same code and its test doubles (``Overrides``), so a test's app is wired as a server is.
/// The caller runs what it built: the server and ``mailSender``'s loop, then at shutdown
/// ``hashingPool``, ``store`` and ``accounts`` (in that order).
package struct AppAssembly: Sendable {
    package let store: Store
    /// The account storage the app was built on; its owner closes it after the store.
    package let accounts: AccountStorage
    package let coordinator: AppCoordinator
    package let hashingPool: BlockingThreadPool
    /// The outbox's sender: the server runs it in the background, tests drain it.
    package let mailSender: MailSender
    /// The address links in mail start with; the server tells it where it listens.
    package let mailLinks: MailLinks
    /// The counters, with `--metrics`.
    package let metrics: MetricsRegistry?

    /// What a test replaces of what the options imply; the defaults are a server's.
    package struct Overrides: Sendable {
        /// The clock of the app and its repairs.
        package var now: @Sendable () -> Date = { Date() }
        /// What a new, empty journal starts with; nil: ``SeedContent`` at ``now``.
        package var seed: [AppAction]?
        /// Where mail goes; nil: the `--smtp` relay, else the log.
        package var mailTransport: (any MailTransport)?
        /// The book's CSRF and mail-link secret; nil: the one the account storage keeps (made on
        /// first start), which every instance on a shared database reads.
        package var bookSecret: [UInt8]?
        /// Where the start-up repairs find the roles `quotebook user role` kept for this start.
        package var keptRoles = KeptRoles.ofOptions
        package var passwordCrypt = PasswordCryptClient.yescrypt
        /// nil: a pool of its own with the options' `--photo-…` shares.
        package var photoProcessing: PhotoProcessing?
        /// nil: with `--dev`, pages reload when a template or public file changes.
        package var live: LiveSettings?
        package var hashingPoolName = "password-hash"
        package var hashingQueueLimit = 64
        /// See the server's reasons in ``AppAssembly/init(options:templates:publicFiles:logger:overrides:open:)``.
        package var hashingScheduling = BlockingThreadPool.SchedulingClass.niceness(10)
        /// Whether each action is logged at debug level (``ActionLogMiddleware``).
        package var logsActions = true

        package init() {}
    }

    /// Where the roles kept by `quotebook user role` for the next start are read.
    package enum KeptRoles: Sendable {
        /// Under the options' data directory on SQLite; none with `--database`.
        case ofOptions
        case at(PendingRoles)
        /// Nowhere: an app without a data directory (in memory, or on PostgreSQL).
        case nowhere
    }

    /// A start the app cannot make, in words for the operator.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Loads the templates, then opens the storage with `open` and builds the app on it.
    ///
    /// - Throws: ``StartFailure`` for broken or incomplete templates or a mail relay that
    ///   cannot be used; what `open`, the store or the account storage threw. Whatever was
    ///   opened is closed first.
    package init(
        options: AppOptions, templates templatesDirectory: URL, publicFiles: URL, logger: Logger, overrides: Overrides = Overrides(),
        open: () async throws -> OpenedBackend
    ) async throws {
        let templates = try Self.loadTemplates(from: templatesDirectory, isDevelopment: options.isDevelopment)
        let metrics = options.metrics ? MetricsRegistry() : nil
        let opened = try await open()
        let accounts = opened.accounts
        var middleware: [any StoreMiddleware] = overrides.logsActions ? [ActionLogMiddleware(logger: logger.labeled("store"))] : []
        if let metrics { middleware.append(metrics.storeMiddleware) }
        let store = try await OpenedBackend.store(
            on: opened, seed: overrides.seed ?? SeedContent.actions(at: overrides.now()), middleware: middleware, logger: logger.labeled("store"))
        let bookSecret: [UInt8]
        let mailTransport: any MailTransport
        do {
            if let secret = overrides.bookSecret {
                bookSecret = secret
            } else {
                bookSecret = try await accounts.sessions.secret(named: "csrf", orCreate: { SecureRandom.bytes(32) })
            }
            mailTransport = try overrides.mailTransport ?? Self.mailTransport(for: options.mail, logger: logger)
        } catch {
            await store.close()
            await accounts.close()
            throw error
        }
        await StartUpRepairs(
            store: store, sessions: accounts.sessions, photos: accounts.photos,
            pendingRoles: Self.pendingRoles(overrides.keptRoles, options: options), logger: logger, now: overrides.now
        ).run()
        // Niceness 10 (the server's): under contention the event loops run first, yet hashing
        // still gets a share. SCHED_IDLE kept GET / p99 lower under sign-ins
        // (Benchmarks/signin-results/RESULTS.md), but when the machine is saturated it starves
        // hashing until sign-ins queue up and answer 503. It is also a priority inversion waiting
        // to happen: a SCHED_IDLE thread preempted while it holds a lock a normal thread needs
        // (under ThreadSanitizer, its allocator's) stalls that thread until the CPUs go idle,
        // which a busy machine never does; so the pool offers no SCHED_IDLE. Each client address
        // may hold --max-hashes-per-client of its places (BlockingThreadPool "Shares").
        let hashingPool = BlockingThreadPool(
            name: overrides.hashingPoolName, threadCount: options.hashingThreads, queueLimit: overrides.hashingQueueLimit,
            perOwnerLimit: options.accountLimits.maxHashesPerClient, scheduling: overrides.hashingScheduling)
        // Mail: the address links start with (--public-url, else the one the server listens on,
        // known once it does), and the task that delivers the outbox.
        let mailLinks = MailLinks(publicURL: options.mail.publicURL)
        let composer = MailComposer(from: options.mail.from ?? MailOptions.defaultFrom, links: mailLinks)
        let mailSender = MailSender(
            storage: accounts.mail, transport: mailTransport, composer: composer,
            username: { [store] in store.state.users[$0]?.username }, retry: MailRetryPolicy(firstPause: options.mail.firstRetryPause),
            counters: metrics?.mail, logger: logger.labeled("mail"), now: overrides.now)
        let dependencies = Dependencies(
            store: store,
            sessionStorage: accounts.sessions,
            photoStorage: accounts.photos,
            signInFailures: accounts.signInFailures,
            mailroom: Mailroom(
                storage: accounts.mail, composer: composer, bookSecret: bookSecret, logger: logger.labeled("mail"),
                wake: { mailSender.wake() }),
            hashingPool: hashingPool,
            passwordCrypt: overrides.passwordCrypt,
            photoProcessing: overrides.photoProcessing ?? PhotoProcessing(limits: options.photoLimits),
            accountLimits: options.accountLimits,
            writeLimits: options.writeLimits,
            csrfKey: bookSecret,
            secureCookies: options.secureCookies,
            now: overrides.now,
            templates: templates,
            staticFiles: StaticFiles(root: publicFiles),
            isDevelopment: options.isDevelopment,
            logger: logger,
            metrics: metrics,
            // --dev: open pages reload when a template or public file changes.
            live: overrides.live ?? LiveSettings(watchedFolders: options.isDevelopment ? [templatesDirectory, publicFiles] : [])
        )
        self.store = store
        self.accounts = accounts
        self.coordinator = AppCoordinator(dependencies: dependencies)
        self.hashingPool = hashingPool
        self.mailSender = mailSender
        self.mailLinks = mailLinks
        self.metrics = metrics
    }

    /// The templates, compiled once (or with `--dev` re-read when they change); a broken or
    /// incomplete set stops the start.
    private static func loadTemplates(from directory: URL, isDevelopment: Bool) throws(StartFailure) -> PageRenderer.Source {
        let templates: PageRenderer.Source
        do {
            templates =
                isDevelopment
                ? .reloading(try TemplateReloader(directory: directory)) : .compiled(try TemplateLibrary(directory: directory))
        } catch {
            throw StartFailure(description: "cannot start with a broken template: \(error)")
        }
        let problems = PageTemplate.problems(in: templates.lastCompiled)
        guard problems.isEmpty else {
            throw StartFailure(
                description: "cannot start: the templates in \(directory.path) are incomplete:\n  " + problems.joined(separator: "\n  "))
        }
        return templates
    }

    /// The `--smtp` relay (with STARTTLS whenever it offers it), else the log.
    private static func mailTransport(for mail: MailOptions, logger: Logger) throws(StartFailure) -> any MailTransport {
        guard let relay = mail.relay else { return LogMailTransport(logger: logger.labeled("mail")) }
        do {
            let helo = mail.publicURL.map(\.host).flatMap { $0.contains(":") ? nil : $0 } ?? "localhost"
            return try SMTPTransport(relay: relay, extraCAFile: mail.extraCAFile, heloName: helo)
        } catch {
            throw StartFailure(description: "cannot send mail through \(relay): \(error)")
        }
    }

    private static func pendingRoles(_ kept: KeptRoles, options: AppOptions) -> PendingRoles? {
        switch kept {
        case .ofOptions: options.database == nil ? PendingRoles(dataDirectory: options.dataDirectory) : PendingRoles?.none
        case .at(let roles): roles
        case .nowhere: nil
        }
    }
}

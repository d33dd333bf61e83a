// The composition root: reads the configuration, builds every dependency once, injects each into
// the next through initialisers, and runs the server. Nothing else lives here.
import App
import Basics
import Composition
import Foundation
import HTTPServer
import Logging
import Mail
import Store
import StoreBackend
import Templates

/// Stops with a message on standard error and a non-zero status (start-up failures only).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("quotebook: \(message)\n".utf8))
    exit(1)
}

/// Stops with the message of an option the parser refused, and status 64 (EX_USAGE).
func refuse(_ error: AppOptions.ParseError) -> Never {
    FileHandle.standardError.write(Data("quotebook: \(error)\n".utf8))
    exit(64)
}

/// Where `options` keep the data (``Backend/init(options:)``); a `--database` URL that cannot be
/// used is refused as any other option is, before anything is opened.
func backend(of options: AppOptions) -> Backend {
    do {
        return try Backend(options: options)
    } catch {
        refuse(error)
    }
}

// What the process creates is its owner's alone, whatever umask it was started with (SPEC.md
// "Running"): the data directory, the database, its WAL and SHM, the snapshot, the lock and
// every backup. Commands and server alike.
umask(0o077)

let arguments = Array(CommandLine.arguments.dropFirst())
let command: AppOptions.Command
do {
    command = try AppOptions.parse(arguments: arguments, environment: ProcessInfo.processInfo.environment)
} catch {
    refuse(error)
}

let options: AppOptions
switch command {
case .help:
    FileHandle.standardOutput.write(Data(AppOptions.usage.utf8))
    exit(0)
case .render(let words):
    let result = RenderCommand.run(arguments: words, standardInput: FileHandle.standardInput.readDataToEndOfFile())
    FileHandle.standardOutput.write(result.output)
    if let message = result.error { FileHandle.standardError.write(Data("quotebook render: \(message)\n".utf8)) }
    exit(result.exitCode)
case .addUser(let username, let displayName, let parsed):
    let userBackend = backend(of: parsed)
    let password = AddUserCommand.password(fromStandardInput: Array(FileHandle.standardInput.readDataToEndOfFile()))
    let userStore: Store
    let userAccounts: AccountStorage
    do {
        let logger = Logger(label: "quotebook", level: .warning, sink: StandardErrorLogSink())
        let opened = try await userBackend.open(logger: logger)
        userAccounts = opened.accounts
        userStore = try Store(journal: opened.journal, seed: SeedContent.actions(at: Date()), logger: logger)
    } catch {
        fail("\(error)")
    }
    let outcome = await AddUserCommand.run(
        username: username, displayName: displayName, password: password, store: userStore, now: Date(),
        hash: { try PasswordCrypt.hash($0) }, keepHash: { try await userAccounts.sessions.setPasswordHash($0, of: $1) })
    await userStore.close()
    await userAccounts.close()
    let stream = outcome.exitCode == 0 ? FileHandle.standardOutput : FileHandle.standardError
    stream.write(Data("quotebook user add: \(outcome.message)\n".utf8))
    exit(outcome.exitCode)
case .setRole(let username, let role, let parsed):
    let roleLogger = Logger(label: "quotebook", level: .warning, sink: StandardErrorLogSink())
    let roleStore: Store
    let roleAccounts: AccountStorage
    do {
        let opened = try await backend(of: parsed).open(logger: roleLogger)
        roleAccounts = opened.accounts
        roleStore = try Store(journal: opened.journal, seed: SeedContent.actions(at: Date()), logger: roleLogger)
    } catch let error as StoreError where error.isDataDirectoryInUse {
        // A server holds the SQLite book: it makes the change when it next starts.
        guard let name = Username(username) else { fail("no account is called \(username)") }
        do {
            try PendingRoles(dataDirectory: parsed.dataDirectory).add(name, role)
        } catch {
            fail("a server is using \(parsed.dataDirectory.path) and the change could not be kept for it: \(error)")
        }
        FileHandle.standardOutput.write(Data(
            "quotebook user role: a server is using \(parsed.dataDirectory.path): \(name) becomes a \(role.rawValue) when it next starts\n".utf8))
        exit(0)
    } catch {
        fail("\(error)")
    }
    let roleOutcome = await RoleCommand.run(username: username, role: role, store: roleStore, now: Date())
    await roleStore.close()
    await roleAccounts.close()
    (roleOutcome.exitCode == 0 ? FileHandle.standardOutput : FileHandle.standardError)
        .write(Data("quotebook user role: \(roleOutcome.message)\n".utf8))
    exit(roleOutcome.exitCode)
case .backup(let file, let parsed):
    let backupBackend = backend(of: parsed)
    let outcome = BackupCommand.run(file: file) { try backupBackend.backup(to: $0) }
    let stream = outcome.exitCode == 0 ? FileHandle.standardOutput : FileHandle.standardError
    stream.write(Data("quotebook backup: \(outcome.message)\n".utf8))
    exit(outcome.exitCode)
case .check(let parsed):
    let outcome: CheckCommand.Outcome
    do {
        let book = try await backend(of: parsed).openForCheck(logger: Logger(label: "quotebook", level: .warning, sink: StandardErrorLogSink()))
        outcome = CheckCommand.run(journal: book.journal, sessionUserIDs: book.sessionUserIDs, photoHashes: book.photoHashes)
        book.journal.close()
    } catch {
        FileHandle.standardError.write(Data("quotebook check: cannot read the book: \(error)\n".utf8))
        exit(1)
    }
    let report = outcome.checked.map { "checked: \($0)\n" }.joined() + outcome.differences.map { "DIFFERENCE: \($0)\n" }.joined()
        + (outcome.exitCode == 0 ? "consistent\n" : "INCONSISTENT: \(outcome.differences.count) differences\n")
    FileHandle.standardOutput.write(Data(report.utf8))
    exit(outcome.exitCode)
case .serve(let parsed):
    options = parsed
}
let storage = backend(of: options)

let logger = Logger(label: "quotebook", level: options.logLevel, sink: StandardErrorLogSink())
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let root = options.resolveRoot(currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), packageRoot: packageRoot)
let templatesDirectory = root.appendingPathComponent("Templates", isDirectory: true)

let templates: PageRenderer.Source
do {
    templates =
        options.isDevelopment
        ? .reloading(try TemplateReloader(directory: templatesDirectory))
        : .compiled(try TemplateLibrary(directory: templatesDirectory))
} catch {
    fail("cannot start with a broken template: \(error)")
}
let templateProblems = PageTemplate.problems(in: templates.lastCompiled)
if !templateProblems.isEmpty {
    fail("cannot start: the templates in \(templatesDirectory.path) are incomplete:\n  " + templateProblems.joined(separator: "\n  "))
}

// --metrics: one registry, fed by the store's middleware and the root coordinator, shown at /metrics.
let metrics = options.metrics ? MetricsRegistry() : nil
let store: Store
let accountStorage: AccountStorage
let csrfKey: [UInt8]
do {
    let opened = try await storage.open(logger: logger)
    accountStorage = opened.accounts
    var middleware: [any StoreMiddleware] = [ActionLogMiddleware(logger: logger.labeled("store"))]
    if let metrics { middleware.append(metrics.storeMiddleware) }
    store = try Store(
        journal: opened.journal, seed: SeedContent.actions(at: Date()), middleware: middleware, logger: logger.labeled("store"))
    csrfKey = try await accountStorage.sessions.secret(named: "csrf", orCreate: { SecureRandom.bytes(32) })
} catch {
    fail("\(error)")
}
await StartUpRepairs(
    store: store, sessions: accountStorage.sessions, photos: accountStorage.photos,
    pendingRoles: options.database == nil ? PendingRoles(dataDirectory: options.dataDirectory) : nil, logger: logger, now: { Date() }
).run()
// Niceness 10: under contention the event loops run first, yet hashing still gets a share.
// SCHED_IDLE kept GET / p99 lower under sign-ins (Benchmarks/signin-results/RESULTS.md), but
// when the machine is saturated it starves hashing until sign-ins queue up and answer 503.
// It is also a priority inversion waiting to happen: a SCHED_IDLE thread preempted while it
// holds a lock a normal thread needs (under ThreadSanitizer, its allocator's) stalls that thread
// until the CPUs go idle, which a busy machine never does; so the pool offers no SCHED_IDLE.
// Each client address may hold --max-hashes-per-client of its places (BlockingThreadPool "Shares").
let hashingPool = BlockingThreadPool(
    name: "password-hash", threadCount: options.hashingThreads, queueLimit: 64,
    perOwnerLimit: options.accountLimits.maxHashesPerClient, scheduling: .niceness(10))

// Mail: the relay (without --smtp, the log), the task that delivers the outbox, and the address
// links in mail start with (--public-url, else the one the server listens on, known once it does).
let mailLinks = MailLinks(publicURL: options.mail.publicURL)
let mailComposer = MailComposer(from: options.mail.from ?? MailOptions.defaultFrom, links: mailLinks)
let mailTransport: any MailTransport
if let relay = options.mail.relay {
    do {
        let helo = options.mail.publicURL.map(\.host).flatMap { $0.contains(":") ? nil : $0 } ?? "localhost"
        mailTransport = try SMTPTransport(relay: relay, extraCAFile: options.mail.extraCAFile, heloName: helo)
    } catch {
        fail("cannot send mail through \(relay): \(error)")
    }
} else {
    mailTransport = LogMailTransport(logger: logger.labeled("mail"))
}
let mailSender = MailSender(
    storage: accountStorage.mail, transport: mailTransport, composer: mailComposer,
    username: { [store] in store.state.users[$0]?.username }, retry: MailRetryPolicy(firstPause: options.mail.firstRetryPause),
    counters: metrics?.mail, logger: logger.labeled("mail"), now: { Date() })

let dependencies = Dependencies(
    store: store,
    sessionStorage: accountStorage.sessions,
    photoStorage: accountStorage.photos,
    signInFailures: accountStorage.signInFailures,
    mailroom: Mailroom(
        storage: accountStorage.mail, composer: mailComposer, bookSecret: csrfKey, logger: logger.labeled("mail"),
        wake: { mailSender.wake() }),
    hashingPool: hashingPool,
    photoProcessing: PhotoProcessing(limits: options.photoLimits),
    accountLimits: options.accountLimits,
    csrfKey: csrfKey,
    secureCookies: options.secureCookies,
    now: { Date() },
    templates: templates,
    staticFiles: StaticFiles(root: root.appendingPathComponent("Public", isDirectory: true)),
    isDevelopment: options.isDevelopment,
    logger: logger,
    metrics: metrics,
    // --dev: open pages reload when a template or public file changes.
    live: LiveSettings(
        watchedFolders: options.isDevelopment ? [templatesDirectory, root.appendingPathComponent("Public", isDirectory: true)] : [])
)
let descriptorLimit = HTTPServer.raiseDescriptorLimit()
logger.debug(
    "descriptor limit \(descriptorLimit): at most \(options.serverConfiguration.connectionLimit(fileLimit: descriptorLimit)) connections")
let server = HTTPServer(
    configuration: options.serverConfiguration,
    responder: AppCoordinator(dependencies: dependencies),
    logger: logger.labeled("http")
)

let port: Int
do {
    port = try server.start()
} catch {
    fail("cannot listen on \(options.host):\(options.port): \(error)")
}

// SIGINT and SIGTERM: stop accepting, let requests in flight finish, close the database, exit 0.
let signals = TerminationSignals { [logger, server] signal in
    logger.notice("signal \(signal): shutting down")
    Task { await server.shutdown() }
}

let displayHost = options.host.contains(":") ? "[\(options.host)]" : options.host
if let listening = PublicURL("http://\(displayHost):\(port)") { mailLinks.listening(on: listening) }
if options.mail.relay == nil { logger.notice("no --smtp: each mail is written to this log instead of being sent") }
let mailDelivery = Task { await mailSender.run() }
FileHandle.standardOutput.write(Data("Quotebook listening on http://\(displayHost):\(port)\n".utf8))
await server.run()
mailDelivery.cancel()
await mailDelivery.value
hashingPool.shutdown()
await store.close()
await accountStorage.close()
logger.notice("stopped")
exit(0)

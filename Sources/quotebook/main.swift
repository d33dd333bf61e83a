// The executable: reads the configuration, has AppAssembly (the composition root) build the app
// once, and runs the server, or one of the operator's commands. Nothing else lives here.
import App
import Basics
import Composition
import Foundation
import HTTPServer
import Logging
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
    let book: OperatorBook
    do {
        book = try await OperatorBook.open(userBackend, logger: Logger(label: "quotebook", level: .warning, sink: StandardErrorLogSink()))
    } catch {
        fail("\(error)")
    }
    let outcome = await AddUserCommand.run(
        username: username, displayName: displayName, password: password, store: book.store, now: Date(),
        hash: { try PasswordCrypt.hash($0) }, keepHash: { try await book.accounts.sessions.setPasswordHash($0, of: $1) })
    await book.close()
    let stream = outcome.exitCode == 0 ? FileHandle.standardOutput : FileHandle.standardError
    stream.write(Data("quotebook user add: \(outcome.message)\n".utf8))
    exit(outcome.exitCode)
case .setRole(let username, let role, let parsed):
    let roleBook: OperatorBook
    do {
        roleBook = try await OperatorBook.open(
            backend(of: parsed), logger: Logger(label: "quotebook", level: .warning, sink: StandardErrorLogSink()))
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
    let roleOutcome = await RoleCommand.run(username: username, role: role, store: roleBook.store, now: Date())
    await roleBook.close()
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
let app: AppAssembly
do {
    app = try await AppAssembly(
        options: options, templates: root.appendingPathComponent("Templates", isDirectory: true),
        publicFiles: root.appendingPathComponent("Public", isDirectory: true), logger: logger
    ) { try await storage.open(logger: logger) }
} catch {
    fail("\(error)")
}
let descriptorLimit = HTTPServer.raiseDescriptorLimit()
logger.debug(
    "descriptor limit \(descriptorLimit): at most \(options.serverConfiguration.connectionLimit(fileLimit: descriptorLimit)) connections")
let server = HTTPServer(
    configuration: options.serverConfiguration,
    responder: app.coordinator,
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
if let listening = PublicURL("http://\(displayHost):\(port)") { app.mailLinks.listening(on: listening) }
if options.mail.relay == nil { logger.notice("no --smtp: each mail is written to this log instead of being sent") }
let mailDelivery = Task { await app.mailSender.run() }
FileHandle.standardOutput.write(Data("Quotebook listening on http://\(displayHost):\(port)\n".utf8))
await server.run()
mailDelivery.cancel()
await mailDelivery.value
app.hashingPool.shutdown()
await app.store.close()
await app.accounts.close()
logger.notice("stopped")
exit(0)

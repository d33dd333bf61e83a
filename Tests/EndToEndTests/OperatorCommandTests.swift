import Foundation
import Logging
import Store
import StoreBackend
import StoreSQLite
import Synchronization
import TestSupport
import Testing

/// `quotebook backup FILE` and `quotebook check`, run as processes on SQLite books (issue 18).
@Suite(.timeLimit(.minutes(3))) struct OperatorCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let process = try QuotebookProcess(arguments: arguments)
        let status = await process.waitForExit()
        return (status, String(decoding: await process.standardOutput(), as: UTF8.self), await process.standardError())
    }

    /// The quotes' texts in the SQLite database at `path`, opened as a server opens it.
    func quoteTexts(inDatabaseAt path: String) async throws -> Set<String> {
        let opened = try await Backend.sqliteFile(path: path).open(logger: .discarding())
        let store = try Store(journal: opened.journal, logger: .discarding())
        let texts = Set(store.state.quotes.values.map(\.text))
        await store.close()
        await opened.accounts.close()
        return texts
    }

    @Test func aBackupTakenWhileSixteenWritersSaveHoldsEverySaveAnsweredBeforeIt() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let server = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path, "--data", data.url.path])
        try await server.waitUntilListening()
        let port = try #require(server.port)
        var browser = SocketBrowser(port: port)
        #expect(try await browser.signUp("writer").status == 303)
        let token = try await browser.csrfToken(from: "/quotes/new")
        let signedIn = browser

        let tally = Tally()
        let backupFile = data.url.appendingPathComponent("copy.sqlite3").path
        let backup = Task {
            // Mid-way: once a quarter of the saves are answered.
            while tally.answered.withLock({ $0.count }) < 60 { try await Task.sleep(for: .milliseconds(5)) }
            let before = tally.answered.withLock { $0 }
            let result = try await Self.run(["backup", backupFile, "--data", data.url.path])
            return (before, result)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    for save in 0..<15 {
                        let text = "Words \(save) of writer \(writer)"
                        let post = signedIn.preparedPost("/quotes", [("text", text), ("author", "Writer \(writer)")], token: token)
                        let response = try await SocketClient.exchangeOnce(port: port, post)
                        if response.status == 303 {
                            tally.answered.withLock { _ = $0.insert(text) }
                        } else {
                            tally.failures.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (before, result) = try await backup.value
        #expect(tally.failures.load(ordering: .relaxed) == 0)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("copied the book through journal entry"))
        #expect(await server.stop() == 0)

        let saved = try await quoteTexts(inDatabaseAt: backupFile)
        #expect(before.count >= 60)
        #expect(before.subtracting(saved).isEmpty, "missing from the backup: \(before.subtracting(saved).sorted().prefix(5))")

        // The copy serves the same book with --data, and checks as consistent.
        let restored = try TemporaryDirectory()
        defer { restored.remove() }
        try FileManager.default.moveItem(atPath: backupFile, toPath: SQLiteJournal.path(inDirectory: restored.url))
        let checked = try await Self.run(["check", "--data", restored.url.path])
        #expect(checked.status == 0, "\(checked.output)")
        let copy = try QuotebookProcess(arguments: ["--port", "0", "--root", RepositoryPaths.root.path, "--data", restored.url.path])
        try await copy.waitUntilListening()
        var reader = SocketBrowser(port: try #require(copy.port))
        let someText = try #require(before.first)
        #expect(try await reader.get("/quotes?q=" + someText.replacingOccurrences(of: " ", with: "+")).text.contains(someText))
        #expect(await copy.stop() == 0)
    }

    @Test func backupRefusesAnExistingFileAndPostgreSQL() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let missing = try await Self.run(["backup", data.url.appendingPathComponent("copy").path, "--data", data.url.path])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no Quotebook database"))
        let existing = data.url.appendingPathComponent("taken").path
        #expect(FileManager.default.createFile(atPath: existing, contents: Data("keep me".utf8)))
        let refused = try await Self.run(["backup", existing, "--data", data.url.path])
        #expect(refused.status == 1)
        #expect(FileManager.default.contents(atPath: existing) == Data("keep me".utf8))
        let postgres = try await Self.run(["backup", "copy", "--database", "postgres://quotebook@localhost/quotebook"])
        #expect(postgres.status == 64)
        #expect(postgres.errors.contains("pg_dump"))
        #expect(try await Self.run(["backup"]).status == 64)
    }

    @Test func aBadDatabaseURLStopsTheProcessAsABadOptionDoes() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        for command in [[], ["check"]] {
            let refused = try await Self.run(command + ["--database", "mysql://ada:s3cret@h/db", "--port", "0", "--data", data.url.path])
            #expect(refused.status == 64)
            #expect(refused.errors.hasPrefix("quotebook: --database: invalid database URL"))
            #expect(!refused.errors.contains("s3cret"))
        }
    }

    /// A book of five entries with a snapshot at entry 3 or later, written as a server writes it.
    func makeBook(in data: TemporaryDirectory) async throws {
        let opened = try await Backend.sqliteDirectory(data.url).open(logger: .discarding())
        let store = try Store(journal: opened.journal, snapshotInterval: 3, logger: .discarding())
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        for (text, author) in [("First words", "Ada"), ("Second words", "Grace"), ("Third words", "Edsger")] {
            _ = try await store.dispatch(.addQuote(QuoteDraft(text: text, author: author), by: nil, at: date))
        }
        _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "First words, edited", author: "Ada"), baseVersion: 1, by: nil, at: date))
        _ = try await store.dispatch(.addQuote(QuoteDraft(text: "Fifth words", author: "Alan"), by: nil, at: date))
        await store.close()
        await opened.accounts.close()
    }

    func damage(_ data: TemporaryDirectory, _ sql: String) throws {
        let connection = try SQLiteConnection(path: SQLiteJournal.path(inDirectory: data.url))
        try connection.execute(sql)
        connection.close()
    }

    @Test func checkFindsAHealthyBookConsistentAndAJournalRowEditedByHand() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        try await makeBook(in: data)
        let healthy = try await Self.run(["check", "--data", data.url.path])
        #expect(healthy.status == 0, "\(healthy.output)")
        #expect(healthy.output.contains("replayed 5 journal entries"))
        #expect(healthy.output.contains("compared the snapshot at entry"))
        #expect(healthy.output.contains("consistent"))

        try damage(data, "UPDATE journal SET action = replace(action, 'Second words', 'Forged words') WHERE sequence = 2")
        let forged = try await Self.run(["check", "--data", data.url.path])
        #expect(forged.status == 1)
        #expect(forged.output.contains("quote 2 has another text"), "\(forged.output)")
        #expect(forged.output.contains("INCONSISTENT"))
    }

    @Test func checkFindsAnEditMovedToAnotherQuoteAndAnUnreadableRow() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        try await makeBook(in: data)
        try damage(data, "UPDATE journal SET quote_id = 2 WHERE sequence = 4")
        let moved = try await Self.run(["check", "--data", data.url.path])
        #expect(moved.status == 1)
        #expect(moved.output.contains("quote 2's history lists 2 journal entries, but the replay gives it 1"), "\(moved.output)")

        try damage(data, "UPDATE journal SET action = '{\"nonsense\":1}' WHERE sequence = 5")
        let unreadable = try await Self.run(["check", "--data", data.url.path])
        #expect(unreadable.status == 1)
        #expect(unreadable.output.contains("cannot be read"), "\(unreadable.output)")
    }
}

/// The saves the writers had answered, and those refused, shared by the writers and the backup.
private final class Tally: Sendable {
    let answered = Mutex<Set<String>>([])
    let failures = Atomic(0)
}

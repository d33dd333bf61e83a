import Foundation
import Store
import TestSupport
import Testing

/// The app suites run on the backend `QUOTEBOOK_TEST_BACKEND` names (SQLite unless it says
/// `postgres`): these tests make a run that asked for PostgreSQL fail if it silently got SQLite.
@Suite struct TestBackendTests {
    @Test func aTestAppRunsOnTheBackendTheRunAskedFor() async throws {
        let app = try await TestApp()
        #expect(app.backend == (try TestBackend.current()))
        // Only a PostgreSQL journal is shared with other instances, so only there the store follows it.
        #expect(app.store.sharesJournal == TestBackend.isPostgres)
        await app.close()
    }

    @Test func aProcessGetsADatabaseOfItsOwnOnPostgreSQL() async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let arguments = try await TestBackend.current().storageArguments(data: data.url)
        #expect(arguments.starts(with: ["--data", data.url.path]))
        #expect(arguments.contains("--database") == TestBackend.isPostgres)
        // The same directory names the same database, so a restart finds its data.
        #expect(try await TestBackend.current().storageArguments(data: data.url) == arguments)
    }

    @Test func anAppReopenedOnTheSameJournalPathSeesItsData() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("quotebook.sqlite3").path
        let first = try await TestApp(journalPath: path)
        _ = try await first.signedIn("ada")
        await first.close()
        let second = try await TestApp(journalPath: path)
        #expect(second.store.state.users.count == 1)
        await second.close()
    }
}

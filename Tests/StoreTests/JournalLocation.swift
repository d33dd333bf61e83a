import Foundation
import Logging
import Store
import StoreBackend
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// The database a journal test runs on: SQLite always, PostgreSQL as well when
/// `QUOTEBOOK_TEST_DATABASE` is set (``PostgresTestDatabase``).
enum JournalBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// Every backend this run can test.
    static let available: [JournalBackend] = PostgresTestDatabase.isConfigured ? [.sqlite, .postgres] : [.sqlite]

    var testDescription: String { rawValue }
}

/// Where one test's journal lives, fresh and its own: a file in a temporary directory, or a
/// PostgreSQL schema of its own (so tests on one database run in parallel without meeting).
/// ``open(pollInterval:)`` opens it as often as a test needs: a restart, a second instance.
struct JournalLocation: Sendable {
    let backend: JournalBackend
    private let directory: TemporaryDirectory?
    /// The PostgreSQL schema; nil for SQLite.
    let schema: String?

    /// A new, empty location on `backend`.
    init(_ backend: JournalBackend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            directory = try TemporaryDirectory()
            schema = nil
        case .postgres:
            directory = nil
            schema = "qb_" + PostgresTestDatabase.uniqueName("t").suffix(16)
        }
    }

    /// Runs `body` with a fresh location on `backend` and removes it afterwards, also when
    /// `body` throws.
    static func with<T>(_ backend: JournalBackend, _ body: (JournalLocation) async throws -> T) async throws -> T {
        let location = try JournalLocation(backend)
        do {
            let result = try await body(location)
            await location.remove()
            return result
        } catch {
            await location.remove()
            throw error
        }
    }

    /// The journal here, opened again. SQLite's is opened by path, without the data directory's
    /// lock: a child process another test starts shares this process's descriptors, the lock's
    /// too, between its fork and its exec, so right after a close the lock can still be held.
    func open(pollInterval: Duration = .milliseconds(250)) throws -> any JournalStorage {
        switch backend {
        case .sqlite:
            return try SQLiteJournal(path: try #require(directory).url.appendingPathComponent("quotebook.sqlite3").path)
        case .postgres:
            return try openPostgres(pollInterval: pollInterval)
        }
    }

    /// The PostgreSQL journal here (the test must be on that backend).
    func openPostgres(pollInterval: Duration = .milliseconds(250)) throws -> PostgresJournal {
        let url = try PostgresURL(parsing: try #require(PostgresTestDatabase.urlText))
        return try PostgresJournal(url: url, schema: try #require(schema), pollInterval: pollInterval, logger: .discarding())
    }

    /// Deletes the directory, or drops the schema and everything in it.
    func remove() async {
        directory?.remove()
        guard let schema, let client = try? PostgresTestDatabase.makeClient() else { return }
        _ = try? await client.query("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        await client.close()
    }
}

import App
import Foundation
import Store
package import StoreBackend
package import StorePostgres
import Synchronization

/// The databases account storage is tested on: SQLite (a file in a temporary directory) always,
/// PostgreSQL (a fresh schema on `QUOTEBOOK_TEST_DATABASE`, as `.ci/postgres.sh start` prints)
/// when that is set. Tests take ``configured`` as their `arguments:`, so one test body runs on
/// both.
package enum AccountBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    /// SQLite, and PostgreSQL when `QUOTEBOOK_TEST_DATABASE` is set.
    package static var configured: [AccountBackend] { TestBackend.databaseURLText == nil ? [.sqlite] : [.sqlite, .postgres] }

    package var description: String { rawValue }

    /// Runs `body` with a fresh, empty database of this kind, closing every instance opened on
    /// it and removing it afterwards (also when `body` throws).
    package func withDatabase<T: Sendable>(_ body: (AccountDatabase) async throws -> T) async throws -> T {
        let database: AccountDatabase
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "quotebook-accounts")
            database = AccountDatabase(location: .sqlite(path: directory.url.appendingPathComponent("accounts.sqlite3").path))
            database.onRemove { directory.remove() }
        case .postgres:
            let url = try PostgresURL(parsing: try Self.requireTestDatabaseURL())
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = PostgresClient(url: url, label: "quotebook.test-admin")
            try await admin.query("CREATE SCHEMA \(schema)")
            database = AccountDatabase(location: .postgres(url: url, schema: schema))
            database.onRemove {
                _ = try? await admin.query("DROP SCHEMA \(schema) CASCADE")
                await admin.close()
            }
        }
        do {
            let result = try await body(database)
            await database.remove()
            return result
        } catch {
            await database.remove()
            throw error
        }
    }

    private static func requireTestDatabaseURL() throws -> String {
        guard let text = TestBackend.databaseURLText else { throw AccountBackendError.notConfigured }
        return text
    }
}

/// A test asked for PostgreSQL without `QUOTEBOOK_TEST_DATABASE`.
package enum AccountBackendError: Error {
    case notConfigured
}

/// One test's database: each ``makeInstance()`` is the storage one more instance of the app
/// would open on it.
package final class AccountDatabase: Sendable {
    package enum Location: Sendable {
        case sqlite(path: String)
        case postgres(url: PostgresURL, schema: String)
    }

    package let location: Location
    private let cleanups = Mutex<[@Sendable () async -> Void]>([])

    init(location: Location) {
        self.location = location
    }

    /// Opens storage on this database as a new instance would (SQLite: a connection of its own
    /// to the file), through ``Backend``.
    package func makeInstance() async throws -> AccountStorage {
        let backend: Backend
        switch location {
        case .sqlite(let path): backend = .sqliteFile(path: path)
        case .postgres(let url, let schema): backend = .postgres(url, schema: schema)
        }
        let instance = try await backend.openAccounts()
        cleanups.withLock { $0.insert(instance.close, at: 0) }
        return instance
    }

    /// Runs `cleanup` when the test is done, after the instances are closed.
    func onRemove(_ cleanup: @escaping @Sendable () async -> Void) {
        cleanups.withLock { $0.append(cleanup) }
    }

    /// Closes the instances, then removes the database.
    func remove() async {
        for cleanup in cleanups.withLock({ $0 }) { await cleanup() }
    }
}

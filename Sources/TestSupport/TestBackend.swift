package import Foundation
import Store
import StoreBackend
package import StorePostgres
import Synchronization

/// The database the app-level suites (`AppTests`, `EndToEndTests`) run on, chosen for the whole
/// test run by the environment, so one suite runs on both backends:
///
/// - `QUOTEBOOK_TEST_BACKEND` unset or `sqlite`: SQLite, in memory for a ``TestApp``, under
///   `--data` for a `quotebook` process (the default, what `swift test` does);
/// - `QUOTEBOOK_TEST_BACKEND=postgres`: PostgreSQL on `QUOTEBOOK_TEST_DATABASE` (as
///   `.ci/postgres.sh start` prints). Each ``TestApp`` gets a fresh schema, each process a fresh
///   database, so tests stay as independent as they are on SQLite.
package enum TestBackend: Sendable, Equatable, CustomStringConvertible {
    case sqlite
    case postgres(PostgresURL)

    /// The backend this run uses.
    ///
    /// - Throws: ``TestBackendError`` for an unknown name, or `postgres` without a server.
    package static func current() throws(TestBackendError) -> TestBackend {
        try chosen.get()
    }

    /// True when this run uses PostgreSQL (for the few tests about SQLite's files themselves).
    package static var isPostgres: Bool {
        if case .success(.postgres) = chosen { return true }
        return false
    }

    /// `QUOTEBOOK_TEST_DATABASE`: the PostgreSQL server every PostgreSQL test uses (as
    /// `.ci/postgres.sh start` prints it), or nil.
    package static let databaseURLText = ProcessInfo.processInfo.environment["QUOTEBOOK_TEST_DATABASE"]
    /// Why a PostgreSQL-only test or suite is skipped without ``databaseURLText``.
    package static let postgresSkipReason = "needs QUOTEBOOK_TEST_DATABASE (.ci/postgres.sh start prints one)"

    private static let chosen: Result<TestBackend, TestBackendError> = {
        switch ProcessInfo.processInfo.environment["QUOTEBOOK_TEST_BACKEND"] ?? "sqlite" {
        case "sqlite", "":
            return .success(.sqlite)
        case "postgres":
            guard let text = databaseURLText else { return .failure(.noDatabase) }
            do {
                return .success(.postgres(try PostgresURL(parsing: text)))
            } catch {
                return .failure(.invalidDatabase("\(error)"))
            }
        case let other:
            return .failure(.unknownBackend(other))
        }
    }()

    package var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }

    /// The storage options a `quotebook` process takes on this backend for the data directory
    /// `data`: `--data DIR` on SQLite; on PostgreSQL also `--database URL` of a database of its
    /// own (created on first use, named after `data`, so a restart on the same directory finds
    /// the same database). The database stays: the test server is a throwaway cluster.
    package func storageArguments(data: URL) async throws -> [String] {
        let dataArguments = ["--data", data.path]
        guard case .postgres(let url) = self else { return dataArguments }
        let name = "quotebook_" + Self.digest(data.standardizedFileURL.path)
        let admin = PostgresClient(url: url, label: "quotebook.test-admin")
        defer { Task { await admin.close() } }
        let existing = try await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
        if existing.rows.isEmpty { try await admin.query("CREATE DATABASE \(name)") }
        var database = url
        database.database = name
        return dataArguments + ["--database", Self.text(of: database)]
    }

    /// A schema name for a test app: fresh, or (for a test that reopens an app on the same
    /// journal, as a restart does) derived from `path`.
    static func schema(reopening path: String?) -> String {
        guard let path else { return "app_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
        return "app_" + digest(path)
    }

    /// 16 hex digits of FNV-1a over `text`: a stable, identifier-safe name part.
    private static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `url` written as the `--database` option takes it (the test server's URLs carry no
    /// characters that need escaping).
    private static func text(of url: PostgresURL) -> String {
        let password = url.password.map { ":\($0)" } ?? ""
        return "postgres://\(url.user)\(password)@\(url.host):\(url.port)/\(url.database)"
    }
}

/// Why ``TestBackend/current()`` refused the environment.
package enum TestBackendError: Error, CustomStringConvertible {
    case noDatabase
    case invalidDatabase(String)
    case unknownBackend(String)

    package var description: String {
        switch self {
        case .noDatabase: "QUOTEBOOK_TEST_BACKEND=postgres " + TestBackend.postgresSkipReason
        case .invalidDatabase(let reason): "QUOTEBOOK_TEST_DATABASE: \(reason)"
        case .unknownBackend(let name): "QUOTEBOOK_TEST_BACKEND=\(name): expected sqlite or postgres"
        }
    }
}

/// Bounds how many test apps hold PostgreSQL connections at once (each holds up to seven: the
/// journal, its snapshot saver and its history reader; the account storage's two clients; the
/// listener both share; the admin client that made the schema), so a parallel test run stays
/// inside the test server's `max_connections` (300, `.ci/postgres.sh`).
final class PostgresAppSlots: Sendable {
    static let shared = PostgresAppSlots(limit: 24)

    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(free: limit))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

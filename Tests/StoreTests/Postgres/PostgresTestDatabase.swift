import Foundation
import Store
import StoreBackend
import StorePostgres
import TestSupport
import Testing

/// The server the live PostgreSQL tests use: `QUOTEBOOK_TEST_DATABASE`, as printed by
/// `.ci/postgres.sh start DIR`. Without it those suites are skipped with ``skipReason``, never
/// passed; with a URL that does not parse they fail.
enum PostgresTestDatabase {
    static let urlText = TestBackend.databaseURLText
    static let isConfigured = urlText != nil
    static let skipReason = Comment(rawValue: TestBackend.postgresSkipReason)

    /// A client of its own for one test (tests run in parallel; each uses temporary tables and
    /// channels named by ``uniqueName(_:)``).
    static func makeClient() throws -> PostgresClient {
        PostgresClient(url: try PostgresURL(parsing: try #require(urlText)))
    }

    /// `prefix` and a random suffix: a channel or table no other test uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
    }
}

import Store
import TestSupport
import Testing

/// What only PostgreSQL account storage has to get right: instances starting together on one
/// schema, and a schema a newer Quotebook migrated.
@Suite(.enabled(if: AccountBackend.testDatabaseURL != nil, Comment(rawValue: AccountBackend.postgresSkipReason)))
struct PostgresAccountStorageTests {
    @Test func instancesStartingTogetherMigrateOnce() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = try await database.makeInstance() } }
                try await group.waitForAll()
            }
            let (url, schema) = try Self.postgresLocation(of: database)
            let version = try await PostgresClient(url: url).query(
                "SELECT version FROM \(schema).quotebook_migration WHERE component = 'accounts'")
            #expect(try version.rows.map { try $0.int64(at: 0) } == [1])
        }
    }

    @Test func aSchemaANewerQuotebookMigratedIsRefused() async throws {
        try await AccountBackend.postgres.withDatabase { database in
            _ = try await database.makeInstance()
            let (url, schema) = try Self.postgresLocation(of: database)
            try await PostgresClient(url: url).query("UPDATE \(schema).quotebook_migration SET version = 99")
            await #expect {
                _ = try await PostgresAccountStorage(url: url, schema: schema)
            } throws: { error in
                guard case StoreError.newerSchema(_, version: 99) = error else { return false }
                return true
            }
        }
    }

    private static func postgresLocation(of database: AccountDatabase) throws -> (PostgresURL, String) {
        guard case .postgres(let url, let schema) = database.location else { throw AccountBackendError.notConfigured }
        return (url, schema)
    }
}

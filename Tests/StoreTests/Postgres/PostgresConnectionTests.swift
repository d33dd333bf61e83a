import Store
import StorePostgres
import Testing

/// The libpq wrapper against a real server: parameterised round trips, transactions, SQLSTATEs.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresConnectionTests {
    @Test func connectsAndReportsItsBackend() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let result = try await client.query("SELECT current_user, current_database(), pg_backend_pid()")
        let pid = try await client.withConnection { $0.backendPID }
        #expect(result.columns == ["current_user", "current_database", "pg_backend_pid"])
        #expect(result.rows.first?.string(at: 0) == client.url.user)
        #expect(result.rows.first?.string(at: 1) == client.url.database)
        #expect(try result.rows.first?.int64(at: 2) == Int64(pid))
    }

    @Test func roundTripsTextNullUnicodeIntegersBooleansAndEveryByte() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let bytes = (0...255).map { UInt8($0) }
        let unicode = "Zoë says „hi“ — 日本語 🦆 \u{202E}rtl"
        let rows = try await client.withConnection { connection throws(StoreError) in
            try connection.query("CREATE TEMP TABLE item (id bigint, name text, flag boolean, data bytea)")
            let insert = "INSERT INTO item (id, name, flag, data) VALUES ($1, $2, $3, $4)"
            let inserted = try connection.query(insert, ["1", unicode, "true", PostgresBytea.encode(bytes)])
            try connection.query(insert, ["-9223372036854775808", nil, nil, nil])
            #expect(inserted.affectedRows == 1)
            return try connection.query("SELECT id, name, flag, data FROM item ORDER BY id DESC").rows
        }
        try #require(rows.count == 2)
        #expect(try rows[0].int64(at: 0) == 1)
        #expect(rows[0].string(at: 1) == unicode)
        #expect(try rows[0].bool(at: 2) == true)
        #expect(try rows[0].bytes(at: 3) == bytes)
        #expect(try rows[1].int64(at: 0) == Int64.min)
        #expect(rows[1].values.dropFirst() == [nil, nil, nil])
    }

    @Test(arguments: [
        "'; DROP TABLE item; --",
        "Robert'); DROP TABLE students;--",
        "$1 $2 \\x00 \" '' E'\\n' /* */",
    ])
    func storesAnInjectionLookingParameterVerbatim(_ text: String) async throws {
        let client = try PostgresTestDatabase.makeClient()
        let stored = try await client.withConnection { connection throws(StoreError) in
            try connection.query("CREATE TEMP TABLE item (name text)")
            try connection.query("INSERT INTO item (name) VALUES ($1)", [text])
            return try connection.query("SELECT name FROM item").rows.map { $0.string(at: 0) }
        }
        #expect(stored == [text])
    }

    @Test func aTransactionCommitsWhatItsBodyDid() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let count = try await client.withConnection { connection throws(StoreError) in
            try connection.query("CREATE TEMP TABLE item (name text)")
            try connection.transaction { () throws(StoreError) in
                try connection.query("INSERT INTO item VALUES ($1)", ["a"])
                try connection.query("INSERT INTO item VALUES ($1)", ["b"])
            }
            return try connection.query("SELECT count(*) FROM item").rows[0].int64(at: 0)
        }
        #expect(count == 2)
    }

    @Test func aTransactionWhoseBodyThrowsIsRolledBackAndTheErrorPassesThrough() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let (error, count) = try await client.withConnection { connection throws(StoreError) in
            try connection.query("CREATE TEMP TABLE item (name text)")
            var caught: StoreError?
            do throws(StoreError) {
                try connection.transaction { () throws(StoreError) in
                    try connection.query("INSERT INTO item VALUES ($1)", ["a"])
                    throw StoreError.storeClosed(operation: "test")
                }
            } catch {
                caught = error
            }
            return (caught, try connection.query("SELECT count(*) FROM item").rows[0].int64(at: 0))
        }
        #expect(error == .storeClosed(operation: "test"))
        #expect(count == 0)
    }

    @Test func aUniqueViolationThrowsSQLState23505WithoutQuotingTheValue() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let insert = "INSERT INTO item (token) VALUES ($1)"
        let error = try await client.withConnection { connection throws(StoreError) in
            try connection.query("CREATE TEMP TABLE item (token text PRIMARY KEY)")
            try connection.query(insert, ["secret-token-42"])
            do throws(StoreError) {
                try connection.query(insert, ["secret-token-42"])
                return StoreError?.none
            } catch {
                return error
            }
        }
        guard let failure = error?.databaseFailure, failure.kind == .failed else {
            Issue.record("expected a PostgreSQL error, got \(String(describing: error))")
            return
        }
        #expect(failure.operation == insert)
        #expect(failure.code == "23505")
        #expect(failure.message.contains("unique constraint"))
        #expect(!(error?.description.contains("secret-token-42") ?? true))
        let stillUsable = try await client.query("SELECT count(*) FROM item")
        #expect(try stillUsable.rows[0].int64(at: 0) == 1)
    }

    @Test func aSyntaxErrorThrowsSQLState42601() async throws {
        let client = try PostgresTestDatabase.makeClient()
        await #expect(throws: StoreError.postgres(operation: "SELEC 1", sqlState: "42601", message: "syntax error at or near \"SELEC\"")) {
            try await client.query("SELEC 1")
        }
    }

    @Test func twoStatementsInOneCallAreRefused() async throws {
        let client = try PostgresTestDatabase.makeClient()
        let error = await #expect(throws: StoreError.self) { try await client.query("SELECT 1; SELECT 2") }
        guard error?.databaseFailure?.code == "42601" else {
            Issue.record("expected SQLSTATE 42601, got \(String(describing: error))")
            return
        }
    }

    @Test func aParameterContainingNULIsRefusedBeforeReachingTheServer() async throws {
        let client = try PostgresTestDatabase.makeClient()
        await #expect(
            throws: StoreError.postgres(
                operation: "SELECT $1", sqlState: nil, message: "parameter $1 contains NUL, which PostgreSQL text cannot hold")
        ) {
            try await client.query("SELECT $1", ["a\u{0}b"])
        }
    }

    @Test func aClosedClientRefusesCalls() async throws {
        let client = try PostgresTestDatabase.makeClient()
        try await client.query("SELECT 1")
        await client.close()
        await #expect(throws: StoreError.postgresClosed(operation: "use")) { try await client.query("SELECT 1") }
    }
}

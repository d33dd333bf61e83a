import StoreBackend
import StorePostgres
import Testing

/// Parsing `--database` URLs (StoreBackend) needs no server; the password must never leak into text.
@Suite struct PostgresURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresURL(parsing: "postgres://alice:s3cret@db.example.com:6543/quotes")
        #expect(url == PostgresURL(user: "alice", password: "s3cret", host: "db.example.com", port: 6543, database: "quotes"))
    }

    @Test func acceptsThePostgresqlSchemeNoPasswordAndTheDefaultPort() throws {
        let url = try PostgresURL(parsing: "postgresql://bob@127.0.0.1/book")
        #expect(url == PostgresURL(user: "bob", password: nil, host: "127.0.0.1", port: 5432, database: "book"))
    }

    @Test func decodesPercentEscapesInEveryPart() throws {
        let url = try PostgresURL(parsing: "postgres://j%C3%BCrgen:p%40ss%3Aw%2Fo%25rd@%2Fvar%2Frun%2Fpostgresql:5433/my%20book")
        #expect(url.user == "jürgen")
        #expect(url.password == "p@ss:w/o%rd")
        #expect(url.host == "/var/run/postgresql")
        #expect(url.port == 5433)
        #expect(url.database == "my book")
    }

    @Test func takesTheLastAtSignAsTheEndOfTheUserInfo() throws {
        let url = try PostgresURL(parsing: "postgres://carol:a@b@host:1/db")
        #expect(url.password == "a@b")
        #expect(url.host == "host")
    }

    @Test func readsABracketedIPv6Host() throws {
        let url = try PostgresURL(parsing: "postgres://dave@[::1]:5544/db")
        #expect(url.host == "::1")
        #expect(url.port == 5544)
        #expect(url.description == "postgres://dave@[::1]:5544/db")
    }

    @Test(arguments: [
        "http://alice@host:5432/db",
        "postgres:/alice@host:5432/db",
        "postgres://alice@host:5432",
        "postgres://alice@host:5432/",
        "postgres://host:5432/db",
        "postgres://@host:5432/db",
        "postgres://:pw@host:5432/db",
        "postgres://alice@:5432/db",
        "postgres://alice@host:/db",
        "postgres://alice@host:0/db",
        "postgres://alice@host:65536/db",
        "postgres://alice@host:54x2/db",
        "postgres://alice@host:+5432/db",
        "postgres://alice@host:5432/db/extra",
        "postgres://alice@host:5432/db?sslmode=require",
        "postgres://alice@host:5432/db#fragment",
        "postgres://alice@one,two:5432/db",
        "postgres://alice@[::1:5432/db",
        "postgres://alice@[::1]x/db",
        "postgres://al%ZZice@host:5432/db",
        "postgres://alice@host:5432/d%4",
        "postgres://alice@host:5432/d%00b",
        "postgres://alice@host:5432/d%FFb",
    ])
    func rejects(_ text: String) {
        #expect(throws: DatabaseURLError.self) { try PostgresURL(parsing: text) }
    }

    @Test func rejectsWithAReasonNamingThePart() {
        #expect(throws: DatabaseURLError(reason: "the port must be a number from 1 to 65535")) {
            try PostgresURL(parsing: "postgres://alice@host:99999/db")
        }
    }

    @Test func descriptionAndDumpHideThePassword() throws {
        let url = try PostgresURL(parsing: "postgres://alice:hunter2@host:5432/db")
        #expect(url.description == "postgres://alice:***@host:5432/db")
        #expect(String(reflecting: url) == url.description)
        var dumped = ""
        dump(url, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("alice"))
    }

    @Test func aParseErrorNeverQuotesThePassword() {
        do {
            _ = try PostgresURL(parsing: "postgres://alice:hunter2@host:5432/db?x=1")
            Issue.record("parsed a URL with a query")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}

import Foundation
import Store
import StorePostgres
import TestSupport
import Testing

/// The parts of the PostgreSQL wrapper that need no server: bytea text, typed row accessors, the
/// back-off schedule, and giving up on a server that is not there.
@Suite struct PostgresValueTests {
    @Test func byteaHexRoundTripsEveryByteValue() {
        let bytes = (0...255).map { UInt8($0) }
        let text = PostgresBytea.encode(bytes)
        #expect(text.hasPrefix("\\x000102"))
        #expect(text.hasSuffix("fdfeff"))
        #expect(PostgresBytea.decode(text) == bytes)
        #expect(PostgresBytea.decode("\\xABcd") == [0xab, 0xcd])
        #expect(PostgresBytea.decode("\\x") == [])
    }

    @Test(arguments: ["", "abcd", "\\xabc", "\\xzz", "\\\\x00", " \\x00"])
    func byteaRejectsTextNotInHexFormat(_ text: String) {
        #expect(PostgresBytea.decode(text) == nil)
    }

    @Test func rowAccessorsReadTextFormatAndNullAsNil() throws {
        let row = PostgresRow(values: ["-9223372036854775808", "t", "f", "\\x00ff", nil, "plain"])
        #expect(try row.int64(at: 0) == Int64.min)
        #expect(try row.bool(at: 1) == true)
        #expect(try row.bool(at: 2) == false)
        #expect(try row.bytes(at: 3) == [0, 255])
        #expect(try row.int64(at: 4) == nil)
        #expect(try row.bytes(at: 4) == nil)
        #expect(row.string(at: 4) == nil)
        #expect(row.string(at: 5) == "plain")
    }

    @Test func aValueOfTheWrongTypeThrowsWithoutQuotingIt() {
        let row = PostgresRow(values: ["secret-token"])
        #expect(throws: StoreError.self) { try row.int64(at: 0) }
        #expect(throws: StoreError.self) { try row.bool(at: 0) }
        do {
            _ = try row.bytes(at: 0)
            Issue.record("read text as bytes")
        } catch {
            #expect(!error.description.contains("secret-token"))
        }
    }

    @Test func backOffDoublesFromFiftyMillisecondsUpToTwoSeconds() {
        let delays = (1...9).map { PostgresReconnectPolicy.standard.delay(afterAttempt: $0) }
        #expect(delays == [50, 100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000].map { Duration.milliseconds($0) })
    }

    @Test func connectingGivesUpAfterTheBudgetWhenNoServerIsThere() async throws {
        // A Unix-socket directory with no server in it: every attempt fails at once.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = PostgresURL(user: "quotebook", password: "hunter2", host: directory.url.path, database: "none")
        let policy = PostgresReconnectPolicy(firstDelay: .milliseconds(10), maximumDelay: .milliseconds(40), budget: .milliseconds(300))
        let client = PostgresClient(url: url, policy: policy)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: StoreError.self) { try await client.query("SELECT 1") }
        let elapsed = start.duration(to: clock.now)
        // That the call returns at all shows it gave up; how fast depends on the machine's load.
        #expect(elapsed >= .milliseconds(200), "retried with back-off before giving up")
        guard let failure = error?.databaseFailure, failure.kind == .failed else {
            Issue.record("expected a connect failure, got \(String(describing: error))")
            return
        }
        #expect(failure.operation == "connect to \(url)")
        #expect(failure.code == nil)
        #expect(failure.message.contains("gave up after"))
        #expect(!(error?.description.contains("hunter2") ?? true))
    }
}

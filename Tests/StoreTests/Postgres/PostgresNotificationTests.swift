import Store
import StorePostgres
import Testing

/// LISTEN/NOTIFY between two connections, and what a connection does after its backend is killed.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresNotificationTests {
    @Test func aNotificationReachesAListeningConnection() async throws {
        let (listener, channel) = try await makeListener(prefix: "Quote Changed")
        let sender = try PostgresTestDatabase.makeClient()
        #expect(try await listener.withConnection { $0.socket } != nil)
        let senderPID = try await sender.withConnection { connection throws(StoreError) in
            try connection.notify(channel, payload: "quote 7 — v2")
            return connection.backendPID
        }
        let received = try await listener.withConnection { connection throws(StoreError) in
            try connection.notifications(waitingUpTo: .seconds(10))
        }
        #expect(received == [PostgresNotification(channel: channel, payload: "quote 7 — v2", senderPID: senderPID)])
        let more = try await listener.withConnection { connection throws(StoreError) in try connection.notifications() }
        #expect(more.isEmpty)
    }

    @Test func aNotificationInARolledBackTransactionIsNeverDelivered() async throws {
        let (listener, channel) = try await makeListener(prefix: "changes")
        let sender = try PostgresTestDatabase.makeClient()
        try await sender.withConnection { connection throws(StoreError) in
            _ = try? connection.transaction { () throws(StoreError) in
                try connection.notify(channel, payload: "rolled back")
                throw StoreError.storeClosed(operation: "test")
            }
            try connection.transaction { () throws(StoreError) in try connection.notify(channel, payload: "committed") }
        }
        // Delivered in commit order, so the rolled-back one would have come first.
        let received = try await listener.withConnection { connection throws(StoreError) in
            try connection.notifications(waitingUpTo: .seconds(10))
        }
        #expect(received.map(\.payload) == ["committed"])
    }

    @Test func waitingWithoutANotificationReturnsEmptyAfterTheTimeout() async throws {
        let listener = try PostgresTestDatabase.makeClient()
        let channel = PostgresTestDatabase.uniqueName("quiet")
        let clock = ContinuousClock()
        let start = clock.now
        let received = try await listener.withConnection { connection throws(StoreError) in
            try connection.listen(to: channel)
            return try connection.notifications(waitingUpTo: .milliseconds(100))
        }
        #expect(received.isEmpty)
        #expect(start.duration(to: clock.now) >= .milliseconds(100))
    }

    @Test func aConnectionTheServerEndedWhileIdleIsReplacedBeforeTheNextQuery() async throws {
        // As every idle connection of every instance is after a database restart: the next
        // statement (a sign-in's, a save's) must run, not fail with a 500.
        let victim = try PostgresTestDatabase.makeClient()
        let killer = try PostgresTestDatabase.makeClient()
        let pid = try await victim.withConnection { $0.backendPID }
        try await terminate(pid, from: killer)
        let (newPID, reconnections) = try await victim.withConnection { connection throws(StoreError) in
            (try connection.query("SELECT pg_backend_pid()").rows[0].int64(at: 0), connection.reconnections)
        }
        #expect(newPID != nil && newPID != Int64(pid))
        #expect(reconnections == 1)
    }

    @Test func aStatementRunningWhenTheConnectionDropsFailsAndTheNextCallReconnects() async throws {
        let victim = try PostgresTestDatabase.makeClient()
        let killer = try PostgresTestDatabase.makeClient()
        let pid = try await victim.withConnection { $0.backendPID }
        async let sleeping = victim.query("SELECT pg_sleep(30)")
        // Ended while it runs the statement, which may or may not have done its work: not retried.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        let running = "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query = 'SELECT pg_sleep(30)'"
        while try await killer.query(running, [String(pid)]).rows.isEmpty {
            try #require(clock.now < deadline, "the statement did not start within 10 s")
            try await Task.sleep(for: .milliseconds(5))
        }
        try await terminate(pid, from: killer)
        var failure: (any Error)?
        do { _ = try await sleeping } catch { failure = error }
        guard let lost = (failure as? StoreError)?.databaseFailure, lost.kind == .connectionLost, lost.operation == "SELECT pg_sleep(30)"
        else {
            Issue.record("expected connection lost, got \(String(describing: failure))")
            return
        }
        let (newPID, reconnections) = try await victim.withConnection { connection throws(StoreError) in
            (try connection.query("SELECT pg_backend_pid()").rows[0].int64(at: 0), connection.reconnections)
        }
        #expect(newPID != nil && newPID != Int64(pid))
        #expect(reconnections == 1)
    }

    @Test func aTransactionWhoseConnectionDropsFailsWithoutReconnectingInside() async throws {
        let victim = try PostgresTestDatabase.makeClient()
        let pid = try await victim.withConnection { $0.backendPID }
        let (errors, reconnectionsInside) = try await victim.withConnection { connection throws(StoreError) in
            var errors: [StoreError] = []
            do throws(StoreError) {
                try connection.transaction { () throws(StoreError) in
                    try connection.query("SELECT 1")
                    // Another session kills this one in the middle of the transaction.
                    try PostgresConnection(url: connection.url).query(
                        "SELECT pg_terminate_backend($1, 5000)", [String(connection.backendPID)])
                    do throws(StoreError) { try connection.query("SELECT 2") } catch { errors.append(error) }
                    try connection.query("SELECT 3")
                }
            } catch {
                errors.append(error)
            }
            return (errors, connection.reconnections)
        }
        #expect(errors.count == 2, "SELECT 2 and SELECT 3 failed")
        #expect(errors.allSatisfy { $0.databaseFailure?.kind == .connectionLost })
        #expect(reconnectionsInside == 0, "nothing reconnected inside the transaction")
        let (newPID, reconnections) = try await victim.withConnection { connection throws(StoreError) in
            (try connection.query("SELECT pg_backend_pid()").rows[0].int64(at: 0), connection.reconnections)
        }
        #expect(newPID != Int64(pid))
        #expect(reconnections == 1)
    }

    @Test func aListenerThatLostItsConnectionListensAgainAfterReconnecting() async throws {
        let (listener, channel) = try await makeListener(prefix: "relisten")
        let sender = try PostgresTestDatabase.makeClient()
        try await terminate(try await listener.withConnection { $0.backendPID }, from: sender)
        await #expect(throws: StoreError.self) {
            try await listener.withConnection { connection throws(StoreError) in try connection.notifications(waitingUpTo: .seconds(10)) }
        }
        // The next call reconnects and LISTENs again before waiting.
        let nothingYet = try await listener.withConnection { connection throws(StoreError) in try connection.notifications() }
        #expect(nothingYet.isEmpty)
        try await sender.withConnection { connection throws(StoreError) in try connection.notify(channel, payload: "after") }
        let received = try await listener.withConnection { connection throws(StoreError) in
            try connection.notifications(waitingUpTo: .seconds(10))
        }
        #expect(received.map(\.payload) == ["after"])
    }

    /// A client of its own listening to a fresh channel named after `prefix`.
    private func makeListener(prefix: String) async throws -> (PostgresClient, channel: String) {
        let listener = try PostgresTestDatabase.makeClient()
        let channel = PostgresTestDatabase.uniqueName(prefix)
        try await listener.withConnection { connection throws(StoreError) in try connection.listen(to: channel) }
        return (listener, channel)
    }

    /// Ends backend `pid` and waits until it has exited (`pg_terminate_backend`'s timeout, 5 s).
    private func terminate(_ pid: Int32, from client: PostgresClient) async throws {
        let result = try await client.query("SELECT pg_terminate_backend($1, 5000)", [String(pid)])
        #expect(try result.rows.first?.bool(at: 0) == true)
    }
}

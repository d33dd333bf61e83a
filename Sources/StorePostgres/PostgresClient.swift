package import Store
import Basics

/// The way into PostgreSQL from async code: owns one ``PostgresConnection`` and runs every call
/// on its own serial dispatch queue, so libpq's blocking round trips, reconnections and
/// notification waits never hold a cooperative-pool thread or an event loop.
///
/// Ownership: the connection is touched only by this actor (on its executor's queue), opened at
/// the first call and kept for the next; creating the client does no I/O. Calls run one at a
/// time, so a client is one session: give a listener a client of its own.
package actor PostgresClient {
    private let executor: DispatchQueueExecutor
    package nonisolated let url: PostgresURL
    private let policy: PostgresReconnectPolicy
    private var connection: PostgresConnection?
    private var isClosed = false

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    package init(url: PostgresURL, policy: PostgresReconnectPolicy = .standard, label: String = "quotebook.postgres") {
        executor = DispatchQueueExecutor(label: label)
        self.url = url
        self.policy = policy
    }

    /// Runs `body` with the connection (connecting first when there is none yet), on the
    /// client's queue, and returns its result. ``PostgresConnection``'s rules on lost connections
    /// apply: nothing is retried here.
    package func withConnection<T: Sendable>(_ body: @Sendable (PostgresConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        guard !isClosed else { throw StoreError.postgresClosed(operation: "use") }
        if let connection { return try body(connection) }
        let connection = try PostgresConnection(url: url, policy: policy)
        self.connection = connection
        return try body(connection)
    }

    /// ``PostgresConnection/query(_:_:)`` on the client's connection.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(StoreError) -> PostgresResult {
        try withConnection { connection throws(StoreError) in try connection.query(sql, parameters) }
    }

    /// Closes the connection; later calls throw ``StoreError/postgresClosed(operation:)``.
    package func close() {
        isClosed = true
        connection?.close()
        connection = nil
    }
}

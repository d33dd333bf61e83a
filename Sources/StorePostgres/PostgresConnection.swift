private import CPostgres
import Foundation
package import Store

/// One libpq connection to PostgreSQL (https://www.postgresql.org/docs/15/libpq.html) that runs
/// parameterised statements, transactions and LISTEN/NOTIFY, and reconnects after losing the
/// server.
///
/// **Every call blocks** the calling thread for a network round trip (a reconnection: for up to
/// the policy's budget). Call it only from a dedicated thread or serial dispatch queue, never from
/// an event loop or the cooperative pool: ``PostgresClient`` owns one on its own queue and is the
/// way in from async code.
///
/// Not Sendable: a libpq connection must not be used by two threads at once, so exactly one owner
/// holds it and uses it from one thread at a time.
///
/// **Lost connections.** When a statement fails and libpq reports the connection bad, the call
/// throws ``StoreError/postgresConnectionLost(operation:message:)`` and does not retry: the
/// server may have applied the statement (or committed the transaction) before the connection
/// dropped, and only the caller knows whether repeating it is safe. A connection the server
/// ended while it sat idle (a restart, `pg_terminate_backend`) is different: the server said so
/// on the socket before any statement was sent, so ``query(_:_:)`` reads that first and
/// reconnects instead of failing a statement the server never saw. The next call reconnects
/// first, retrying per ``PostgresReconnectPolicy``, re-issues the LISTENs, counts the reconnection
/// in ``reconnections`` and then runs; if the server stays away for the whole budget it throws
/// ``StoreError/postgres(operation:sqlState:message:)``. Inside ``transaction(_:)`` nothing
/// reconnects: the server rolled that transaction back, so every later statement of it throws
/// `postgresConnectionLost` too, and the transaction fails.
package final class PostgresConnection {
    package let url: PostgresURL
    package let policy: PostgresReconnectPolicy
    /// The `PGconn`; nil once closed. It may be in the bad state until the next call reconnects.
    private var handle: OpaquePointer?
    private var isInTransaction = false
    /// Channels LISTENed to, in order, re-issued after a reconnection.
    var channels: [String] = []
    /// How many times this connection was re-established after being lost. A listener that sees
    /// it grow may have missed notifications sent while the connection was down.
    package private(set) var reconnections = 0

    /// Connects to `url`, retrying per `policy` while the server cannot be reached.
    ///
    /// - Throws: ``StoreError/postgres(operation:sqlState:message:)`` when no attempt succeeded
    ///   within the budget (bad credentials fail every attempt, so they too take the budget).
    package init(url: PostgresURL, policy: PostgresReconnectPolicy = .standard) throws(StoreError) {
        self.url = url
        self.policy = policy
        handle = try Self.connect(to: url, policy: policy)
    }

    deinit {
        PQfinish(handle)
    }

    /// Closes the connection; later calls throw ``StoreError/postgresClosed(operation:)``.
    package func close() {
        PQfinish(handle)
        handle = nil
    }

    /// The server process serving this connection (`pg_backend_pid()`), 0 when closed.
    package var backendPID: Int32 {
        handle.map { PQbackendPID($0) } ?? 0
    }

    /// The descriptor of the connection's socket (`PQsocket`), for a caller that waits for
    /// notifications with its own `poll` and then calls ``notifications(waitingUpTo:)`` with no
    /// timeout; nil when closed or lost (this never reconnects). It changes with a reconnection.
    package var socket: Int32? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        let fd = PQsocket(handle)
        return fd < 0 ? nil : fd
    }

    /// Runs one statement, with `parameters` bound to `$1`, `$2`… as text (nil is NULL), and
    /// returns its rows as text. One statement only: libpq refuses several in one parameterised
    /// call, so values can never become SQL.
    ///
    /// - Throws: ``StoreError/postgres(operation:sqlState:message:)`` when the server refuses it;
    ///   ``StoreError/postgresConnectionLost(operation:message:)`` when the connection dropped.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = []) throws(StoreError) -> PostgresResult {
        if !isInTransaction { noticeEndedWhileIdle() }
        let connection = try connected(for: sql)
        if let index = parameters.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw StoreError.postgres(
                operation: sql, sqlState: nil, message: "parameter $\(index + 1) contains NUL, which PostgreSQL text cannot hold")
        }
        let result = Self.withCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        guard let result, [PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(result)) else {
            throw failure(of: sql, result: result)
        }
        return PostgresResult(reading: result)
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back if it throws. Transactions do not nest.
    ///
    /// When the connection drops, the error is `postgresConnectionLost` and nothing is rolled back
    /// by hand (the server already did); when that happens during `COMMIT`, whether the
    /// transaction was committed is unknown.
    package func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        precondition(!isInTransaction, "PostgreSQL transactions do not nest")
        try query("BEGIN")
        isInTransaction = true
        defer { isInTransaction = false }
        do {
            let value = try body()
            try query("COMMIT")
            return value
        } catch {
            if error.databaseFailure?.kind != .connectionLost { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    /// Starts a transaction that ``commitTransaction()`` or ``rollbackTransaction()`` ends, for
    /// one that spans several calls (the journal's head held across a catch-up). Transactions do
    /// not nest.
    package func beginTransaction() throws(StoreError) {
        precondition(!isInTransaction, "PostgreSQL transactions do not nest")
        try query("BEGIN")
        isInTransaction = true
    }

    /// Commits the transaction ``beginTransaction()`` started; as for ``transaction(_:)``, a
    /// connection lost during `COMMIT` leaves it unknown whether it was committed. The
    /// transaction has ended either way.
    package func commitTransaction() throws(StoreError) {
        defer { isInTransaction = false }
        try query("COMMIT")
    }

    /// Rolls back the transaction ``beginTransaction()`` started, if one is open (after a lost
    /// connection the server already did).
    package func rollbackTransaction() {
        guard isInTransaction else { return }
        _ = try? query("ROLLBACK")
        isInTransaction = false
    }

    /// Between statements nothing is in flight, so anything waiting on the socket is a
    /// notification or the server ending the session (its error, then end of file). Reading it
    /// (`PQconsumeInput` never blocks; notifications stay queued for ``notifications(waitingUpTo:)``)
    /// turns a session that ended into `CONNECTION_BAD`, which ``connected(for:)`` replaces. One
    /// `poll` when the socket is quiet; a few reads at most when it is not.
    private func noticeEndedWhileIdle() {
        guard let handle else { return }
        for _ in 0..<4 {
            guard PQstatus(handle) == CONNECTION_OK, SocketWait.isReadable(PQsocket(handle)),
                PQconsumeInput(handle) == 1
            else { return }
        }
    }

    /// The open `PGconn`, after reconnecting if the connection was lost (outside a transaction).
    func connected(for operation: String) throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError.postgresClosed(operation: operation) }
        guard PQstatus(handle) == CONNECTION_BAD else { return handle }
        guard !isInTransaction else {
            throw StoreError.postgresConnectionLost(operation: operation, message: "the transaction's connection was lost earlier")
        }
        let fresh = try Self.connect(to: url, policy: policy)
        PQfinish(handle)
        self.handle = fresh
        reconnections += 1
        for channel in channels { try query("LISTEN \(try quotedIdentifier(channel, on: fresh))") }
        return fresh
    }

    /// The error for a failed call: connection lost when libpq now reports the connection bad,
    /// else the server's SQLSTATE and primary message (never DETAIL, which may quote values).
    func failure(of operation: String, result: OpaquePointer?) -> StoreError {
        let sqlState = result.flatMap { cpostgres_sqlstate($0) }.map { String(cString: $0) }
        let primary = result.flatMap { cpostgres_primary_message($0) }.map { String(cString: $0) }
        let message = primary ?? handle.map { String(cString: PQerrorMessage($0)) } ?? "no connection"
        if let handle, PQstatus(handle) == CONNECTION_BAD {
            return StoreError.postgresConnectionLost(operation: operation, message: Self.oneLine(message))
        }
        return StoreError.postgres(operation: operation, sqlState: sqlState, message: Self.oneLine(message))
    }

    /// `name` as a quoted SQL identifier (`PQescapeIdentifier`), for the statements that cannot
    /// take parameters (LISTEN, UNLISTEN).
    func quotedIdentifier(_ name: String, on connection: OpaquePointer) throws(StoreError) -> String {
        guard let quoted = PQescapeIdentifier(connection, name, name.utf8.count) else {
            throw failure(of: "quote identifier", result: nil)
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// Opens a connection, retrying per `policy`.
    private static func connect(to url: PostgresURL, policy: PostgresReconnectPolicy) throws(StoreError) -> OpaquePointer {
        let clock = ContinuousClock()
        let start = clock.now
        var attempt = 1
        while true {
            let failure: OpenFailure
            do throws(OpenFailure) {
                return try open(url)
            } catch {
                failure = error
            }
            let delay = policy.delay(afterAttempt: attempt)
            guard start.duration(to: clock.now) + delay <= policy.budget else {
                throw StoreError.postgres(
                    operation: "connect to \(url)", sqlState: nil,
                    message: "\(failure.message) (gave up after \(attempt) attempts in \(start.duration(to: clock.now)))")
            }
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            attempt += 1
        }
    }

    /// One connection attempt. Keywords rather than a connection string, so no part of the URL is
    /// ever parsed as options (`expand_dbname` 0).
    private static func open(_ url: PostgresURL) throws(OpenFailure) -> OpaquePointer {
        let settings: [(String, String?)] = [
            ("host", url.host), ("port", String(url.port)), ("user", url.user), ("password", url.password),
            ("dbname", url.database), ("connect_timeout", "5"), ("client_encoding", "UTF8"),
            ("application_name", "quotebook"), ("options", "-c bytea_output=hex"),
        ].filter { $0.1 != nil }
        let connection = withCStrings(settings.map(\.0)) { keywords in
            withCStrings(settings.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw OpenFailure(message: oneLine(message))
        }
        // Notices (a WARNING, a NOTICE from a ROLLBACK outside a transaction) would go to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    /// libpq's multi-line message (`FATAL:  …`, `server closed the connection…`, a tab-indented
    /// hint) as one log line.
    private static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// libpq's message for a failed attempt.
    private struct OpenFailure: Error {
        let message: String
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings (nil stays NULL), all
    /// valid only during the call.
    private static func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        var storage: [CChar] = []
        var offsets: [Int?] = []
        for string in strings {
            offsets.append(string.map { _ in storage.count })
            if let string { storage.append(contentsOf: string.utf8CString) }
        }
        return storage.withUnsafeBufferPointer { buffer in
            let pointers = offsets.map { offset in offset.map { UnsafePointer(buffer.baseAddress! + $0) } } + [nil]
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}

@available(*, unavailable, message: "A PostgreSQL connection belongs to one owner; see its documentation.")
extension PostgresConnection: Sendable {}

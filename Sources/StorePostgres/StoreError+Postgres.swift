package import Store

/// PostgreSQL's failures, as ``DatabaseFailure`` values: this module decides which of them mean
/// the database is out of reach (``StoreError/isDatabaseUnavailable``, a 503 rather than a 500).
extension StoreError {
    /// PostgreSQL refused `operation` (a statement's SQL, or "connect to …") with this SQLSTATE
    /// (https://www.postgresql.org/docs/15/errcodes-appendix.html), or the client failed before a
    /// server could answer (`sqlState` nil). `message` is the primary message only, never the
    /// DETAIL line, which can quote bound values.
    ///
    /// Unavailable: a connection that could not be made, class 08 (connection exception), and
    /// 57P01–57P03 (shutting down, crashed, starting up).
    package static func postgres(operation: String, sqlState: String?, message: String) -> StoreError {
        let isUnavailable =
            if let sqlState {
                sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
            } else {
                operation.hasPrefix("connect to ")
            }
        return .database(
            DatabaseFailure(
                kind: .failed, operation: operation, code: sqlState, message: message, isUnavailable: isUnavailable,
                description: "PostgreSQL error \(sqlState ?? "(no SQLSTATE)") (\(message)) during \(operation)"))
    }

    /// The connection to PostgreSQL dropped while `operation` was under way, so it may or may not
    /// have been applied; it was not retried. The connection's next call reconnects first.
    package static func postgresConnectionLost(operation: String, message: String) -> StoreError {
        .database(
            DatabaseFailure(
                kind: .connectionLost, operation: operation, code: nil, message: message, isUnavailable: true,
                description: "PostgreSQL connection lost during \(operation) (\(message)); it may or may not have been applied"))
    }

    /// The PostgreSQL connection or client was closed, so `operation` was refused without reaching
    /// the server.
    package static func postgresClosed(operation: String) -> StoreError {
        .database(
            DatabaseFailure(
                kind: .closed, operation: operation, code: nil, message: "closed", isUnavailable: false,
                description: "PostgreSQL connection closed: \(operation) refused"))
    }

    /// Whether this is a closed PostgreSQL connection or client's refusal (``postgresClosed(operation:)``).
    var isClosedConnection: Bool { databaseFailure?.kind == .closed }
}

extension StoreError {
    /// True when the failure is the database being out of reach — a connection lost mid-call, a
    /// connection that could not be made, or the server shutting down or still starting — rather
    /// than a fault in what was asked: trying again shortly may well succeed, so the app answers
    /// 503 with `Retry-After` rather than 500.
    package var isDatabaseUnavailable: Bool {
        switch self {
        case .postgresConnectionLost:
            true
        case .postgres(let operation, nil, _):
            operation.hasPrefix("connect to ")
        case .postgres(_, let sqlState?, _):
            // Class 08, connection exception; 57P01–57P03: shutting down, crashed, starting up
            // (https://www.postgresql.org/docs/15/errcodes-appendix.html).
            sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
        default:
            false
        }
    }
}

/// A call a backend made to its database failed: what it was doing, what the database said, and
/// whether the database was out of reach. The backend modules make these (StoreSQLite's
/// `StoreError.sqlite(operation:code:message:)`, StorePostgres' `StoreError.postgres(…)` and
/// kin) in their own words, so the core names no database.
package struct DatabaseFailure: Sendable, Equatable, CustomStringConvertible {
    /// How the call failed, as far as a caller can act on it.
    package enum Kind: Sendable, Equatable {
        /// The database (or its client library) answered with an error.
        case failed
        /// The connection dropped while the call was under way, so it may or may not have been
        /// applied; it was not retried.
        case connectionLost
        /// The connection or client was closed, so the call was refused without reaching the
        /// database.
        case closed
    }

    package let kind: Kind
    /// What was being done: a statement's SQL, "open PATH", "connect to URL", "append"…
    package let operation: String
    /// The database's own code for the failure, when it gave one (SQLite's extended result code,
    /// PostgreSQL's SQLSTATE), as text.
    package let code: String?
    /// The database's primary message only, never a detail that can quote bound values.
    package let message: String
    /// True when trying again shortly may well succeed; see ``StoreError/isDatabaseUnavailable``.
    package let isUnavailable: Bool
    /// The whole failure in the backend's words, as logs and error pages' details show it.
    package let description: String

    package init(kind: Kind, operation: String, code: String?, message: String, isUnavailable: Bool, description: String) {
        self.kind = kind
        self.operation = operation
        self.code = code
        self.message = message
        self.isUnavailable = isUnavailable
        self.description = description
    }

    /// A journal that broke its contract (it answered, but not as ``JournalStorage`` promises),
    /// whatever the database behind it.
    static func journal(operation: String, message: String) -> DatabaseFailure {
        DatabaseFailure(
            kind: .failed, operation: operation, code: nil, message: message, isUnavailable: false,
            description: "the journal failed during \(operation) (\(message))")
    }
}

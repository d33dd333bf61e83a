private import CSQLite
package import Store

/// A prepared statement (https://sqlite.org/c3ref/stmt.html), finalized when released.
///
/// Not Sendable, like the connection that made it; it keeps that connection alive.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    init(statement: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// A value bound to a `?` parameter.
    package enum Value: Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
        case null
    }

    /// Binds `values` to the parameters in order (1-based in SQLite), after a reset.
    package func bind(_ values: [Value]) throws(StoreError) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let int): code = sqlite3_bind_int64(statement, index, int)
            case .real(let double): code = sqlite3_bind_double(statement, index, double)
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, csqlite_transient())
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), csqlite_transient())
                }
            case .null: code = sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else { throw connection.error(code, operation: "bind \(index)") }
        }
    }

    /// Steps once: true when a row is available, false when done.
    package func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code, operation: sql)
        }
    }

    /// Binds, runs to completion and discards rows.
    package func run(_ values: [Value] = []) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(statement)
    }

    /// Binds, then returns every row, each read by `row`.
    package func rows<T>(_ values: [Value] = [], _ row: (SQLiteStatement) -> T) throws(StoreError) -> [T] {
        try bind(values)
        var result: [T] = []
        while try step() { result.append(row(self)) }
        sqlite3_reset(statement)
        return result
    }

    package func int(at column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    package func real(at column: Int32) -> Double { sqlite3_column_double(statement, column) }

    package func text(at column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: pointer)
    }

    package func blob(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Lends `body` the bytes of a BLOB (or TEXT) column of the current row without copying them;
    /// they are valid only until the next step or reset (https://sqlite.org/c3ref/column_blob.html).
    package func withBlob<T, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        let pointer = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
}

@available(*, unavailable, message: "A statement belongs to its connection's owner.")
extension SQLiteStatement: Sendable {}

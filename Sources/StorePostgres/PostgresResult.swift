private import CPostgres
package import Store

/// What one statement returned, copied out of libpq's result (which is then freed): column
/// names, rows of text values, and the count of rows an INSERT, UPDATE or DELETE touched.
package struct PostgresResult: Sendable, Equatable {
    package var columns: [String]
    package var rows: [PostgresRow]
    /// Rows inserted, updated, deleted, selected…, from the command tag (`PQcmdTuples`); 0 for
    /// commands without a count (`BEGIN`, `LISTEN`).
    package var affectedRows: Int

    package init(columns: [String], rows: [PostgresRow], affectedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// Copies a successful `PGresult` (text format, https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-EXEC-SELECT-INFO).
    init(reading result: OpaquePointer) {
        let columnCount = PQnfields(result)
        columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        rows = (0..<PQntuples(result)).map { row in
            PostgresRow(
                values: (0..<columnCount).map { column in
                    PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                })
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}

/// One row of a ``PostgresResult``: each column's value in PostgreSQL's text format, nil for NULL.
///
/// The typed accessors return nil for NULL and throw ``StoreError/postgres(operation:sqlState:message:)``
/// when the text is not of that type; the error never quotes the value. A column index out of
/// range is a programming error and traps.
package struct PostgresRow: Sendable, Equatable {
    package var values: [String?]

    package init(values: [String?]) {
        self.values = values
    }

    package func string(at column: Int) -> String? {
        values[column]
    }

    /// An `int2`, `int4` or `int8` column.
    package func int64(at column: Int) throws(StoreError) -> Int64? {
        try convert(column, to: "Int64") { Int64($0) }
    }

    /// A `bytea` column, in the hex output format.
    package func bytes(at column: Int) throws(StoreError) -> [UInt8]? {
        try convert(column, to: "bytes") { PostgresBytea.decode($0) }
    }

    /// A `boolean` column (`t` or `f`).
    package func bool(at column: Int) throws(StoreError) -> Bool? {
        try convert(column, to: "Bool") { text in
            switch text {
            case "t": true
            case "f": false
            default: nil
            }
        }
    }

    private func convert<T>(_ column: Int, to type: String, _ parse: (String) -> T?) throws(StoreError) -> T? {
        guard let text = values[column] else { return nil }
        guard let value = parse(text) else {
            throw StoreError.postgres(
                operation: "read column \(column) as \(type)", sqlState: nil,
                message: "a value of \(text.utf8.count) bytes is not of that type")
        }
        return value
    }
}

package import Store

/// SQLite's failures, in the words the store's errors had before the core stopped naming backends.
extension StoreError {
    /// A SQLite call failed with this extended result code (https://sqlite.org/rescode.html).
    /// SQLite is a file beside the process, never out of reach, so this is never
    /// ``StoreError/isDatabaseUnavailable``.
    package static func sqlite(operation: String, code: Int32, message: String) -> StoreError {
        .database(
            DatabaseFailure(
                kind: .failed, operation: operation, code: String(code), message: message, isUnavailable: false,
                description: "SQLite error \(code) (\(message)) during \(operation)"))
    }
}

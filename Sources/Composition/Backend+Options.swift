package import App
package import StoreBackend
import StorePostgres

/// Where a process's options keep the data.
extension Backend {
    /// SQLite under `--data`, or with `--database` PostgreSQL, shared by every instance on it.
    ///
    /// - Throws: a ``AppOptions/ParseError`` naming `--database` (or `QUOTEBOOK_DATABASE`) and the
    ///   part of the URL at fault, never the URL or its password, when the URL cannot be used;
    ///   the executable treats it as it treats any other option it refuses.
    package init(options: AppOptions) throws(AppOptions.ParseError) {
        guard let database = options.database else {
            self = .sqliteDirectory(options.dataDirectory)
            return
        }
        do {
            self = .postgres(try PostgresURL(parsing: database.url))
        } catch {
            throw AppOptions.ParseError(description: "\(database.source): \(error)")
        }
    }
}

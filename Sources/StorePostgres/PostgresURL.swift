/// Where a PostgreSQL database is and who connects to it: the connection parameters, already
/// unescaped. StoreBackend reads them from the `--database` URL the person typed
/// (`PostgresURL(parsing:)`, the user-facing syntax); this module only connects with them.
///
/// The password never appears in ``description`` or in the mirror (`dump`).
package struct PostgresURL: Sendable, Equatable {
    package var user: String
    package var password: String?
    /// A host name, an IP address, or a Unix-socket directory (starting with `/`).
    package var host: String
    package var port: Int
    package var database: String

    package init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
    }
}

extension PostgresURL: CustomStringConvertible {
    /// The URL with the password, if any, replaced by `***` (parts are shown unescaped).
    package var description: String {
        let host = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }
}

extension PostgresURL: CustomReflectable {
    /// What `dump` and debuggers show: every part but the password, which shows as `***`.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "user": user, "password": password == nil ? "nil" : "***", "host": host, "port": port, "database": database,
            ] as KeyValuePairs<String, Any>)
    }
}

import Store

/// Applies numbered migrations, tracking the applied count in `PRAGMA user_version`
/// (https://sqlite.org/pragma.html#pragma_user_version); each runs in one transaction together
/// with the version bump, so a crash never leaves a half-applied migration.
struct SchemaMigrator {
    let migrations: [String]

    func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        let current = Int(try connection.prepare("PRAGMA user_version").rows { $0.int(at: 0) }.first ?? 0)
        guard current <= migrations.count else {
            throw StoreError.newerSchema(path: connection.path, version: current)
        }
        for (index, sql) in migrations.enumerated().dropFirst(current) {
            try connection.transaction { () throws(StoreError) in
                try connection.execute(sql)
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}

import Foundation
import Store

/// Applies one component's numbered migrations to a PostgreSQL schema, tracking the applied count
/// per component in that schema's `quotebook_migration` table. All of it runs in one transaction
/// holding an advisory lock (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS),
/// so instances starting together migrate once, one after the other, and a crash never leaves a
/// half-applied migration.
///
/// A migration is a list of statements, each run alone (libpq runs one statement per call), with
/// the schema as the transaction's `search_path`, so its SQL names tables unqualified. The schema
/// is created when missing.
struct PostgresSchemaMigrator {
    /// Who owns the migrations (`accounts`, `journal`): each component counts its own.
    let component: String
    let migrations: [[String]]
    /// A table where an earlier Quotebook counted this component's migrations (one row per
    /// version applied): its count is adopted once, the first time this migrator runs.
    var legacyVersionTable: String?

    /// Brings `schema` up to date on `connection`.
    ///
    /// - Throws: ``StoreError/newerSchema(path:version:)`` when a newer Quotebook migrated it
    ///   further than this one knows; PostgreSQL errors as they come.
    func migrate(_ connection: PostgresConnection, schema: String) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            // One lock per schema whatever the component, so two components never race to
            // create the version table either.
            try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["quotebook migrations in \(schema)"])
            // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the
            // schema is there.
            if try connection.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]).rows.isEmpty {
                try connection.query("CREATE SCHEMA \(PostgresSchemaMigrator.quoted(schema))")
            }
            try connection.query("SET LOCAL search_path TO \(PostgresSchemaMigrator.quoted(schema))")
            try connection.query(
                "CREATE TABLE IF NOT EXISTS quotebook_migration (component text PRIMARY KEY, version integer NOT NULL)")
            let rows = try connection.query("SELECT version FROM quotebook_migration WHERE component = $1", [component]).rows
            var current = Int(try rows.first?.int64(at: 0) ?? 0)
            if rows.isEmpty, let legacyVersionTable,
                try !connection.query("SELECT to_regclass($1)", [legacyVersionTable]).rows.allSatisfy({ $0.string(at: 0) == nil })
            {
                let legacy = try connection.query("SELECT coalesce(max(version), 0) FROM \(legacyVersionTable)")
                current = Int(try legacy.rows.first?.int64(at: 0) ?? 0)
            }
            guard current <= migrations.count else {
                throw StoreError.newerSchema(path: "\(connection.url) schema \(schema) (\(component))", version: current)
            }
            guard current < migrations.count || rows.isEmpty else { return }
            for statement in migrations.dropFirst(current).joined() { try connection.query(statement) }
            try connection.query(
                """
                INSERT INTO quotebook_migration (component, version) VALUES ($1, $2)
                ON CONFLICT (component) DO UPDATE SET version = excluded.version
                """, [component, String(migrations.count)])
        }
    }

    /// `name` as a quoted SQL identifier: in double quotes, a double quote doubled
    /// (https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Refuses a schema name a component cannot use: it must be 1 to 40 bytes without NUL, so a
    /// NOTIFY channel named after it (``channel(_:forSchema:)``) fits PostgreSQL's 63-byte limit.
    static func checkSchemaName(_ schema: String, opening component: String) throws(StoreError) {
        guard (1...40).contains(schema.utf8.count), !schema.utf8.contains(0) else {
            throw StoreError.postgres(
                operation: "open \(component)", sqlState: nil, message: "the schema name must be 1 to 40 bytes without NUL")
        }
    }

    /// A component's NOTIFY channel: `quotebook_<name>`, or `quotebook_<name>_<schema>` for a
    /// schema other than `public` (tests give each their own).
    static func channel(_ name: String, forSchema schema: String) -> String {
        schema == "public" ? "quotebook_\(name)" : "quotebook_\(name)_\(schema)"
    }
}

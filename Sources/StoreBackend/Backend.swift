package import Foundation
package import Logging
package import Store
package import StorePostgres
import StoreSQLite

/// Where Quotebook keeps its journal and account storage, and the one place either backend is
/// opened: `main.swift` opens the process's backend here, and the tests open theirs the same way.
package enum Backend: Sendable, Equatable {
    /// SQLite in `quotebook.sqlite3` inside a data directory (created when missing), locked for
    /// this process until the journal closes: `--data DIR`.
    case sqliteDirectory(URL)
    /// SQLite in the database file at `path`, or `:memory:` for a private in-memory database
    /// (the account storage then gets a private one of its own).
    case sqliteFile(path: String)
    /// PostgreSQL at `url`, tables in `schema` (`public` in production, one per test), shared by
    /// every instance on it: `--database URL`.
    case postgres(PostgresURL, schema: String = "public")

    /// Opens the journal and the account storage. On PostgreSQL both follow their NOTIFY
    /// channels through one ``PostgresListener``, the process's only one.
    ///
    /// - Throws: what opening either threw; whatever was already open is closed then.
    package func open(logger: Logger) async throws(StoreError) -> OpenedBackend {
        switch self {
        case .sqliteDirectory(let directory):
            let opened = try Self.openSQLite(SQLiteJournal(directory: directory))
            if let warning = DataDirectoryMode.warning(forDirectory: directory.path) { logger.warning(warning) }
            return opened
        case .sqliteFile(let path):
            return try Self.openSQLite(SQLiteJournal(path: path))
        case .postgres(let url, let schema):
            let listener = PostgresListener(url: url)
            let accounts: PostgresAccountStorage
            do {
                accounts = try await PostgresAccountStorage(url: url, schema: schema, listener: listener)
            } catch {
                listener.stop()
                throw error
            }
            do {
                // Blocks for a connection to the server (milliseconds on a local network).
                let journal = try PostgresJournal(url: url, schema: schema, listener: listener, logger: logger.labeled("store"))
                return OpenedBackend(journal: journal, accounts: AccountStorage(accounts, listener: listener))
            } catch {
                await accounts.close()
                listener.stop()
                throw error
            }
        }
    }

    /// The account storage alone, as one more instance beside those already open on the same
    /// database would open it (tests of what instances share). SQLite: a connection of its own
    /// to the file; PostgreSQL: a listener of its own too.
    package func openAccounts() async throws(StoreError) -> AccountStorage {
        switch self {
        case .sqliteDirectory(let directory):
            return AccountStorage(try SQLiteAccountStorage(path: SQLiteJournal.path(inDirectory: directory)))
        case .sqliteFile(let path):
            return AccountStorage(try SQLiteAccountStorage(path: path))
        case .postgres(let url, let schema):
            let listener = PostgresListener(url: url)
            do {
                return AccountStorage(try await PostgresAccountStorage(url: url, schema: schema, listener: listener), listener: listener)
            } catch {
                listener.stop()
                throw error
            }
        }
    }

    /// The account storage beside `journal`, in its file (`:memory:`: a private database).
    private static func openSQLite(_ journal: SQLiteJournal) throws(StoreError) -> OpenedBackend {
        do {
            return OpenedBackend(journal: journal, accounts: AccountStorage(try SQLiteAccountStorage(path: journal.path)))
        } catch {
            journal.close()
            throw error
        }
    }
}

/// A backend opened for one process: the journal its ``Store`` takes over (and closes), and the
/// account storage, which the process closes itself.
package struct OpenedBackend {
    package let journal: any JournalStorage
    package let accounts: AccountStorage

    /// `journal` beside `accounts`: as opened, or (tests of instances sharing one log) another
    /// instance's journal beside this one's accounts.
    package init(journal: any JournalStorage, accounts: AccountStorage) {
        self.journal = journal
        self.accounts = accounts
    }
}

/// What the operator commands read of a book, without taking it over: `quotebook check` and
/// `quotebook backup` work beside a running server.
extension Backend {
    /// The journal (only read from, for SQLite: no lock, no migration) and the account tables'
    /// references to the book, for `quotebook check`. The caller closes `journal`.
    package func openForCheck(logger: Logger) async throws(StoreError) -> BookForCheck {
        switch self {
        case .sqliteDirectory(let directory):
            return try Self.sqliteForCheck(path: SQLiteJournal.path(inDirectory: directory))
        case .sqliteFile(let path):
            return try Self.sqliteForCheck(path: path)
        case .postgres(let url, let schema):
            let listener = PostgresListener(url: url)
            defer { listener.stop() }
            let accounts = try await PostgresAccountStorage(url: url, schema: schema, listener: listener)
            do {
                let sessionUserIDs = try await accounts.sessionUserIDs()
                let photoHashes = try await accounts.storedHashes()
                await accounts.close()
                let journal = try PostgresJournal(url: url, schema: schema, listener: listener, logger: logger.labeled("store"))
                return BookForCheck(journal: journal, sessionUserIDs: sessionUserIDs, photoHashes: photoHashes)
            } catch {
                await accounts.close()
                throw error
            }
        }
    }

    private static func sqliteForCheck(path: String) throws(StoreError) -> BookForCheck {
        let tables = try SQLiteAccountStorage.accountTables(readingPath: path)
        return BookForCheck(journal: try SQLiteJournal(readingPath: path), sessionUserIDs: tables.sessionUserIDs, photoHashes: tables.photoHashes)
    }

    /// Copies a SQLite book to a new file at `file` (see ``SQLiteBackup``): the newest journal
    /// entry in the copy and how many it holds. nil for PostgreSQL, which `pg_dump` backs up.
    package func backup(to file: String) throws(StoreError) -> (newestEntry: Int64, entryCount: Int64)? {
        let source: String
        switch self {
        case .sqliteDirectory(let directory): source = SQLiteJournal.path(inDirectory: directory)
        case .sqliteFile(let path): source = path
        case .postgres: return nil
        }
        let summary = try SQLiteBackup.copy(databaseAt: source, to: file)
        return (summary.newestEntry, summary.entryCount)
    }
}

/// A book as `quotebook check` reads it.
package struct BookForCheck {
    package let journal: any JournalStorage
    /// The account of every session (one entry a session).
    package let sessionUserIDs: [UserID]
    /// Every photo the account storage holds.
    package let photoHashes: [String]
}

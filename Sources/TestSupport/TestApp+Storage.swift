import App
import Foundation
import Logging
import Store
import Synchronization

extension TestApp {
    /// The journal and account storage of one test app, opened on the run's backend, as
    /// `main.swift`'s `openStorage` opens them for a process.
    struct Storage {
        let journal: any JournalStorage
        let sessions: any SessionStorage
        let photos: any PhotoStorage
        let signInFailures: any SignInFailureStorage
        /// Closes the account storage and whatever else the backend opened (not the journal:
        /// its store closes it).
        let close: @Sendable () async -> Void

        static func open(
            on backend: TestBackend, journalPath: String?, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            logger: Logger
        ) async throws -> Storage {
            switch backend {
            case .sqlite:
                let ownJournal = try SQLiteJournal(path: journalPath ?? ":memory:")
                // Beside the journal in its file; `:memory:` opens a private in-memory database.
                let accounts = try SQLiteAccountStorage(path: ownJournal.path)
                let journal: any JournalStorage
                if let sharedJournal {
                    // Another instance's log: the SQLite file keeps the accounts alone.
                    ownJournal.close()
                    journal = try sharedJournal()
                } else {
                    journal = ownJournal
                }
                // One process owns a SQLite database, so its failures are counted in memory.
                return Storage(
                    journal: journal, sessions: accounts, photos: accounts, signInFailures: InMemorySignInFailures(),
                    close: { await accounts.close() })
            case .postgres(let url):
                return try await openPostgres(url: url, journalPath: journalPath, sharedJournal: sharedJournal, logger: logger)
            }
        }

        /// A schema of the app's own (fresh, or the one `journalPath` names) on `url`, holding
        /// its journal (unless shared) and its accounts. A fresh schema is dropped at close.
        private static func openPostgres(
            url: PostgresURL, journalPath: String?, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            logger: Logger
        ) async throws -> Storage {
            await PostgresAppSlots.shared.acquire()
            let schema = TestBackend.schema(reopening: journalPath)
            let admin = PostgresClient(url: url, label: "quotebook.test-admin")
            let closeAll = { @Sendable (accounts: PostgresAccountStorage?) async in
                await accounts?.close()
                if journalPath == nil { _ = try? await admin.query("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
                await admin.close()
                PostgresAppSlots.shared.release()
            }
            var accounts: PostgresAccountStorage?
            do {
                try await admin.query("CREATE SCHEMA IF NOT EXISTS \(schema)")
                let opened = try await PostgresAccountStorage(url: url, schema: schema)
                accounts = opened
                // Blocks for a connection to a local server (milliseconds), as main.swift does.
                let journal = try sharedJournal?() ?? PostgresJournal(url: url, schema: schema, logger: logger.labeled("store"))
                return Storage(
                    journal: journal, sessions: opened, photos: opened, signInFailures: opened,
                    close: { await closeAll(opened) })
            } catch {
                await closeAll(accounts)
                throw error
            }
        }
    }

    /// Runs the app's close action once: at ``TestApp/close()``, or when the last copy of the
    /// app is released (a test that never closes its app still gives its connections back).
    final class Resources: Sendable {
        private let action: Mutex<(@Sendable () async -> Void)?>

        init(close: @escaping @Sendable () async -> Void) {
            action = Mutex(close)
        }

        func close() async {
            if let close = action.withLock({ $0.take() }) { await close() }
        }

        deinit {
            if let close = action.withLock({ $0.take() }) { Task { await close() } }
        }
    }
}

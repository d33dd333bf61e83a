import App
import Foundation
import Logging
import Store
import StoreBackend
import StorePostgres
import Synchronization

extension TestApp {
    /// The journal and account storage of one test app, opened on the run's backend by
    /// ``Backend``, as `main.swift` opens them for a process.
    struct Storage {
        let journal: any JournalStorage
        let sessions: any SessionStorage
        let photos: any PhotoStorage
        let signInFailures: any SignInFailureStorage
        let mail: any MailStorage
        /// Closes the account storage and whatever else the backend opened (not the journal:
        /// its store closes it).
        let close: @Sendable () async -> Void

        /// Opens the backend, SQLite at `journalPath` (in memory without one) or a PostgreSQL
        /// schema of the app's own; with `sharedJournal`, another instance's log replaces the
        /// journal it opened, and the backend keeps the accounts alone.
        static func open(
            on backend: TestBackend, journalPath: String?, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            logger: Logger
        ) async throws -> Storage {
            switch backend {
            case .sqlite:
                let opened = try await Backend.sqliteFile(path: journalPath ?? ":memory:").open(logger: logger)
                return try Storage(opened, sharedJournal: sharedJournal, close: opened.accounts.close)
            case .postgres(let url):
                return try await openPostgres(url: url, journalPath: journalPath, sharedJournal: sharedJournal, logger: logger)
            }
        }

        private init(
            _ opened: OpenedBackend, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            close: @escaping @Sendable () async -> Void
        ) throws {
            if let sharedJournal {
                opened.journal.close()
                do {
                    journal = try sharedJournal()
                } catch {
                    Task { await close() }
                    throw error
                }
            } else {
                journal = opened.journal
            }
            sessions = opened.accounts.sessions
            photos = opened.accounts.photos
            signInFailures = opened.accounts.signInFailures
            mail = opened.accounts.mail
            self.close = close
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
            let closeAll = { @Sendable (accounts: AccountStorage?) async in
                await accounts?.close()
                if journalPath == nil { _ = try? await admin.query("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
                await admin.close()
                PostgresAppSlots.shared.release()
            }
            let opened: OpenedBackend
            do {
                try await admin.query("CREATE SCHEMA IF NOT EXISTS \(schema)")
                opened = try await Backend.postgres(url, schema: schema).open(logger: logger)
            } catch {
                await closeAll(nil)
                throw error
            }
            return try Storage(opened, sharedJournal: sharedJournal, close: { [accounts = opened.accounts] in await closeAll(accounts) })
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

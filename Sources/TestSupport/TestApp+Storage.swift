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
    enum Storage {
        /// Opens the backend, SQLite at `journalPath` (in memory without one) or a PostgreSQL
        /// schema of the app's own; with `sharedJournal`, another instance's log replaces the
        /// journal it opened, and the backend keeps the accounts alone. Closing the accounts
        /// closes whatever else the backend opened (not the journal: its store closes it).
        static func open(
            on backend: TestBackend, journalPath: String?, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            logger: Logger
        ) async throws -> OpenedBackend {
            switch backend {
            case .sqlite:
                let opened = try await Backend.sqliteFile(path: journalPath ?? ":memory:").open(logger: logger)
                return try await sharing(sharedJournal, in: opened)
            case .postgres(let url):
                return try await openPostgres(url: url, journalPath: journalPath, sharedJournal: sharedJournal, logger: logger)
            }
        }

        /// `opened`, or with `sharedJournal` the same accounts beside another instance's journal.
        private static func sharing(
            _ sharedJournal: (@Sendable () throws -> any JournalStorage)?, in opened: OpenedBackend
        ) async throws -> OpenedBackend {
            guard let sharedJournal else { return opened }
            opened.journal.close()
            do {
                return OpenedBackend(journal: try sharedJournal(), accounts: opened.accounts)
            } catch {
                await opened.accounts.close()
                throw error
            }
        }

        /// A schema of the app's own (fresh, or the one `journalPath` names) on `url`, holding
        /// its journal (unless shared) and its accounts. A fresh schema is dropped at close.
        private static func openPostgres(
            url: PostgresURL, journalPath: String?, sharedJournal: (@Sendable () throws -> any JournalStorage)?,
            logger: Logger
        ) async throws -> OpenedBackend {
            await PostgresAppSlots.shared.acquire()
            let schema = TestBackend.schema(reopening: journalPath)
            let admin = PostgresClient(url: url, label: "quotebook.test-admin")
            let closeRest = { @Sendable in
                if journalPath == nil { _ = try? await admin.query("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
                await admin.close()
                PostgresAppSlots.shared.release()
            }
            let opened: OpenedBackend
            do {
                try await admin.query("CREATE SCHEMA IF NOT EXISTS \(schema)")
                opened = try await Backend.postgres(url, schema: schema).open(logger: logger)
            } catch {
                await closeRest()
                throw error
            }
            return try await sharing(
                sharedJournal, in: OpenedBackend(journal: opened.journal, accounts: opened.accounts.closing(then: closeRest)))
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

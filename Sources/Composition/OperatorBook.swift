import App
package import Foundation
package import Logging
package import Store
package import StoreBackend

/// The book an operator's command (`quotebook user add`, `quotebook user role`) changes: the
/// store and the account storage on the options' backend, opened as the server opens them, with
/// the same seed for a book that has none yet. Built here, beside ``AppAssembly``, so there is
/// one place that knows how a ``Store`` is made of a backend; `main.swift` only runs the command.
package struct OperatorBook {
    package let store: Store
    package let accounts: AccountStorage

    /// Opens `backend`'s journal and account storage, and the store on the journal.
    ///
    /// - Throws: what opening the backend or building the store threw (``StoreError``; a
    ///   SQLite book a server holds is ``StoreError/isDataDirectoryInUse``). Whatever was
    ///   already open is closed first.
    package static func open(_ backend: Backend, logger: Logger, now: Date = Date()) async throws -> OperatorBook {
        let opened = try await backend.open(logger: logger)
        do {
            let store = try Store(journal: opened.journal, seed: SeedContent.actions(at: now), logger: logger)
            return OperatorBook(store: store, accounts: opened.accounts)
        } catch {
            // The journal went to the store, which closes it (or its deinit does).
            await opened.accounts.close()
            throw error
        }
    }

    /// Closes the store, then the account storage.
    package func close() async {
        await store.close()
        await accounts.close()
    }
}

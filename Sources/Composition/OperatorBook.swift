import App
package import Foundation
package import Logging
package import Store
package import StoreBackend

/// The book an operator's command (`quotebook user add`, `quotebook user role`) changes: the
/// store and the account storage on the options' backend, opened as the server opens them, with
/// the same seed for a book that has none yet. Built here, beside ``AppAssembly``, and with the
/// same ``StoreBackend/OpenedBackend/store(on:seed:middleware:logger:)``; `main.swift` only runs the command.
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
        let accounts = opened.accounts
        let store = try await OpenedBackend.store(on: opened, seed: SeedContent.actions(at: now), logger: logger)
        return OperatorBook(store: store, accounts: accounts)
    }

    /// Closes the store, then the account storage.
    package func close() async {
        await store.close()
        await accounts.close()
    }
}

extension OpenedBackend {
    /// The store on `opened`'s journal, seeded with `seed` if the book is new: how the server
    /// (``AppAssembly``) and the operator's commands (``OperatorBook``) both make it.
    ///
    /// - Throws: what the store threw; the account storage is closed first (the journal went to
    ///   the store, which closes it, or its deinit does).
    static func store(
        on opened: sending OpenedBackend, seed: [AppAction], middleware: [any StoreMiddleware] = [], logger: Logger
    ) async throws -> Store {
        let accounts = opened.accounts
        do {
            return try Store(journal: opened.journal, seed: seed, middleware: middleware, logger: logger)
        } catch {
            await accounts.close()
            throw error
        }
    }
}

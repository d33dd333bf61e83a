package import Store
import StorePostgres
import StoreSQLite

/// The account storage of one instance, under the protocols the app uses: sessions and secrets,
/// photos, and sign-in failures. Made only by ``Backend``, so the choice of where each lives is
/// made in one place.
package struct AccountStorage: Sendable {
    package let sessions: any SessionStorage
    package let photos: any PhotoStorage
    package let signInFailures: any SignInFailureStorage
    /// Email addresses, mail links and the outbox, beside the password hashes.
    package let mail: any MailStorage
    /// Closes the storage (on PostgreSQL, the process's listener too); later calls throw
    /// ``StoreError/accountStorageClosed(operation:)``.
    package let close: @Sendable () async -> Void

    /// SQLite: one process owns the database (its data directory is locked), so sign-in failures
    /// have no one to be shared with and are counted in memory.
    init(_ storage: SQLiteAccountStorage) {
        sessions = storage
        photos = storage
        signInFailures = InMemorySignInFailures()
        mail = storage
        close = { await storage.close() }
    }

    /// The same storage, whose ``close`` then runs `after` as well (what a test set up around it:
    /// a schema of its own to drop, say).
    package func closing(then after: @escaping @Sendable () async -> Void) -> AccountStorage {
        AccountStorage(sessions: sessions, photos: photos, signInFailures: signInFailures, mail: mail) { [close] in
            await close()
            await after()
        }
    }

    private init(
        sessions: any SessionStorage, photos: any PhotoStorage, signInFailures: any SignInFailureStorage, mail: any MailStorage,
        close: @escaping @Sendable () async -> Void
    ) {
        self.sessions = sessions
        self.photos = photos
        self.signInFailures = signInFailures
        self.mail = mail
        self.close = close
    }

    /// PostgreSQL: every instance on the database counts the same sign-in failures; `listener`
    /// stops when the storage closes.
    init(_ storage: PostgresAccountStorage, listener: PostgresListener) {
        sessions = storage
        photos = storage
        signInFailures = storage
        mail = storage
        close = {
            await storage.close()
            listener.stop()
        }
    }
}

package import Foundation
package import Logging
package import Store

/// What a server does to its book before it serves: mends what a process killed mid-way left
/// behind, and makes the role changes the operator kept for this start. The composition roots —
/// `main.swift` and `TestApp` — both run it, so a test's app starts as a server's does.
///
/// Each repair is logged, and a repair that fails is logged and tried again at the next start:
/// none of them stops the server.
package struct StartUpRepairs: Sendable {
    package let store: Store
    package let sessions: any SessionStorage
    package let photos: any PhotoStorage
    /// Where `quotebook user role` keeps changes beside a running SQLite server; nil on
    /// PostgreSQL, where the command changes the shared book at once.
    package let pendingRoles: PendingRoles?
    package let logger: Logger
    package let now: @Sendable () -> Date

    package init(
        store: Store, sessions: any SessionStorage, photos: any PhotoStorage, pendingRoles: PendingRoles?, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.sessions = sessions
        self.photos = photos
        self.pendingRoles = pendingRoles
        self.logger = logger
        self.now = now
    }

    /// Every repair, in order: sessions long unused, what deleted accounts left, sign-ups cut
    /// short, the operator's kept roles, photos nobody refers to (last: before serving, so with
    /// SQLite no upload is in flight).
    package func run() async {
        await deleteExpiredSessions()
        await eraseDeletedAccounts()
        await removeUnfinishedSignUps()
        await applyPendingRoles()
        await collectUnreferencedPhotos()
    }

    func deleteExpiredSessions() async {
        do {
            let expired = try await sessions.deleteSessions(unusedSince: now().addingTimeInterval(-SessionKeeper.idleLifetime))
            if expired > 0 { logger.info("deleted \(expired) sessions unused for 30 days") }
        } catch {
            logger.warning("could not delete sessions unused for 30 days (tried again at the next start): \(error)")
        }
    }

    /// Sessions and passwords of deleted accounts: left by a process killed between journaling a
    /// deletion and erasing the account's storage.
    func eraseDeletedAccounts() async {
        do {
            let erased = try await SessionKeeper.eraseDeletedAccounts(from: sessions, in: store.state)
            if erased > 0 { logger.info("erased the sessions and passwords of \(erased) deleted accounts") }
        } catch {
            logger.warning("could not look for sessions of deleted accounts (tried again at the next start): \(error)")
        }
    }

    /// Accounts a sign-up left without a password: left by a process killed between journaling
    /// the sign-up and keeping its hash (``UnfinishedSignUps``).
    func removeUnfinishedSignUps() async {
        do {
            let (finding, failure) = try await UnfinishedSignUps.remove(from: store, storage: sessions, now: now())
            switch finding {
            case .cutShort(let users) where !users.isEmpty:
                let ids = users.map(\.rawValue)
                logger.info("removed \(users.count) account(s) that a sign-up cut short left without a password: ids \(ids)")
            case .cutShort:
                break
            case .storageEmpty(let accounts):
                logger.warning("account storage holds no password or session for any of the book's \(accounts) accounts: none removed")
            case .tooMany(let accounts):
                logger.warning("\(accounts) accounts have no password or session and nothing refers to them: none removed")
            }
            if let failure { logger.warning("could not remove a sign-up cut short (tried again at the next start): \(failure)") }
        } catch {
            logger.warning("could not look for sign-ups cut short (tried again at the next start): \(error)")
        }
    }

    /// Role changes `quotebook user role` kept while this book's last server held it (SQLite).
    func applyPendingRoles() async {
        guard let pendingRoles else { return }
        for message in await pendingRoles.apply(to: store, now: now()) {
            logger.notice("quotebook user role, kept for this start: \(message)")
        }
    }

    /// Photos nobody refers to: left by a process killed mid-upload, or kept by versions that
    /// never deleted a replaced photo.
    func collectUnreferencedPhotos() async {
        do {
            let keeper = PhotoKeeper(store: store, storage: photos, now: now, logger: logger.labeled("photos"))
            let freed = try await keeper.collectUnreferenced(claimsLapseAfter: store.sharesJournal ? PhotoKeeper.claimLifetime : 0)
            if freed > 0 { logger.info("deleted \(freed) photos nobody refers to") }
        } catch {
            logger.warning("could not look for photos nobody refers to (tried again at the next start): \(error)")
        }
    }
}

package import Foundation
package import Store

/// Accounts that a sign-up cut short left behind: the journal holds the sign-up, but the process
/// died (or account storage failed) before the password's hash was kept, so no one can sign in
/// to the account and its username is taken. Start-up removes them from the book, so the person
/// can sign up again under the same name.
///
/// An account counts as one when all of these hold:
/// - it joined more than ``grace`` ago: a sign-up keeps its hash about 0.1 s after its journal
///   entry, so an account another instance is making at this moment is never taken for one;
/// - account storage holds neither a password hash nor a session for it (a session is only
///   ever started after the hash is kept);
/// - nothing in the book refers to it: no photo, no favourite, no quote it added or last
///   edited (none of which anyone can do without signing in).
///
/// When account storage holds no account at all while the book has more than one, the storage
/// was lost or replaced rather than a sign-up cut short (or the book was generated, as the
/// scale benchmark's is): nothing is removed, and ``find(in:stored:joinedBefore:)`` says so.
package enum UnfinishedSignUps {
    /// How long after joining an account without a password is taken for a sign-up cut short.
    package static let grace: TimeInterval = 600

    /// Finishes the sign-up of `user`, just journaled, with `keepHash` (which keeps its password
    /// hash in account storage). Should that fail, the sign-up is taken back at once, as deleting
    /// the account would, so its username is free for the next try, and the error is rethrown;
    /// should the process die in between, the next start-up takes it back (``remove(from:storage:now:)``).
    /// Both ways in, the sign-up form and `quotebook user add`, end their sign-up here.
    package static func finish(
        _ user: UserID, in store: any StateStore, at date: Date, keepingHash keepHash: () async throws -> Void
    ) async throws {
        do {
            try await keepHash()
        } catch {
            _ = try? await store.dispatch(.deleteAccount(user, at: date))
            throw error
        }
    }

    /// What start-up should do about the accounts of a book.
    package enum Finding: Equatable, Sendable {
        /// These accounts are sign-ups cut short (none: an empty list).
        case cutShort([UserID])
        /// Account storage holds no account while the book has `accounts`: not repaired.
        case storageEmpty(accounts: Int)
    }

    /// The accounts of `state` that are sign-ups cut short, given the ids account storage holds
    /// anything for (``SessionStorage/storedAccountIDs()``).
    package static func find(in state: AppState, stored: [UserID], joinedBefore cutoff: Date) -> Finding {
        if stored.isEmpty, state.users.count > 1 { return .storageEmpty(accounts: state.users.count) }
        let stored = Set(stored)
        var candidates = Set(
            state.users.values.lazy.filter { user in
                user.joinedAt < cutoff && !stored.contains(user.id) && user.photo == nil && user.favourite == nil
            }.map(\.id))
        guard !candidates.isEmpty else { return .cutShort([]) }
        for quote in state.quotes.values {
            if let id = quote.addedBy { candidates.remove(id) }
            if let id = quote.updatedBy { candidates.remove(id) }
        }
        return .cutShort(candidates.sorted { $0.rawValue < $1.rawValue })
    }

    /// Removes the sign-ups cut short from the book, as deleting the account would (their
    /// journal entries erased, their username free), and returns those it removed; or says why
    /// it removed nothing.
    package static func remove(from store: any StateStore, storage: any SessionStorage, now: Date) async throws -> Finding {
        let finding = find(in: store.state, stored: try await storage.storedAccountIDs(), joinedBefore: now - grace)
        guard case .cutShort(let users) = finding else { return finding }
        var removed: [UserID] = []
        for user in users {
            // Signed up to again meanwhile would need the username free; deleted meanwhile
            // (userNotFound) leaves nothing to remove.
            if case .success = try await store.dispatch(.deleteAccount(user, at: now)) { removed.append(user) }
        }
        return .cutShort(removed)
    }
}

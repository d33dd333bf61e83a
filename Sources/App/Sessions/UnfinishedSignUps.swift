package import Foundation
package import Store

/// Accounts that a sign-up cut short left behind: the journal holds the sign-up, but the process
/// died (or account storage failed) before the password's hash was kept, so no one can sign in
/// to the account and its username is taken. Start-up removes them from the book, so the person
/// can sign up again under the same name.
///
/// An account counts as one when all of these hold:
/// - it joined more than ``grace`` ago: a sign-up keeps its hash about 0.1 s after its journal
///   entry, so an account another instance is making at this moment is not taken for one, as
///   long as the instances' clocks (the joining date is the signing-up instance's) are within
///   ``grace`` of each other;
/// - account storage holds neither a password hash nor a session for it (a session is only
///   ever started after the hash is kept);
/// - nothing in the book as it is now refers to it: no photo, no favourite, no quote it added
///   or last edited (none of which anyone can do without signing in).
///
/// Sign-ups are cut short one crash at a time. So when account storage holds no account at all
/// while the book has more than one, or more than ``mostAtOnce`` accounts look cut short, the
/// storage was lost or replaced (or the book was generated, as the scale benchmark's is):
/// nothing is removed, and ``find(in:stored:joinedBefore:)`` says so.
package enum UnfinishedSignUps {
    /// How long after joining an account without a password is taken for a sign-up cut short.
    package static let grace: TimeInterval = 600

    /// The most accounts one start-up takes for sign-ups cut short: a process killed amid a
    /// burst of sign-ups leaves a few, never a book's worth.
    package static let mostAtOnce = 8

    /// Finishes the sign-up of `user`, just journaled, with `keepHash` (which keeps its password
    /// hash in account storage). Should that fail, the sign-up is taken back at once, as deleting
    /// the account would, so its username is free for the next try, and the error is rethrown.
    /// Should the take-back fail too (the journal's database gone with the storage), or the
    /// process die in between, the next start-up takes it back (``remove(from:storage:now:)``).
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
        /// These accounts are sign-ups cut short (none: an empty list); from
        /// ``remove(from:storage:now:)``, those it removed.
        case cutShort([UserID])
        /// Account storage holds no account while the book has `accounts`: not repaired.
        case storageEmpty(accounts: Int)
        /// More accounts than ``mostAtOnce`` look cut short: not repaired.
        case tooMany(Int)
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
        guard candidates.count <= mostAtOnce else { return .tooMany(candidates.count) }
        return .cutShort(candidates.sorted { $0.rawValue < $1.rawValue })
    }

    /// Removes the sign-ups cut short from the book, as deleting the account would (their
    /// journal entries erased, their username free), and returns those it removed; or says why
    /// it removed nothing. One that cannot be removed is left for the next start, and the rest
    /// are still removed: `failure` is the last error met, if any.
    package static func remove(
        from store: any StateStore, storage: any SessionStorage, now: Date
    ) async throws(StoreError) -> (finding: Finding, failure: StoreError?) {
        let finding = find(in: store.state, stored: try await storage.storedAccountIDs(), joinedBefore: now - grace)
        guard case .cutShort(let users) = finding else { return (finding, nil) }
        var removed: [UserID] = []
        var failure: StoreError?
        for user in users {
            // Deleted meanwhile (userNotFound) leaves nothing to remove.
            do {
                if case .success = try await store.dispatch(.deleteAccount(user, at: now)) { removed.append(user) }
            } catch {
                failure = error
            }
        }
        return (.cutShort(removed), failure)
    }
}

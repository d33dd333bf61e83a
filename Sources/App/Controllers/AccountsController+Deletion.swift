package import Store

extension AccountsController {
    /// Deletes `user`'s account once `password` proves it is them. The password is checked like
    /// a sign-in, under the person's own counter (``checkOwnPassword(_:of:client:)``), on the
    /// hashing pool, a wrong one staying counted; then read again, and a password changed since
    /// the check began (from another browser) makes this one wrong after all. (A change landing
    /// between that second read and the deletion still loses to it: the deletion ends every
    /// session and forgets whatever hash there is.)
    ///
    /// Then, in this order: the journal records the deletion, erasing in the same transaction
    /// every entry that named them (``JournalStorage/append(_:basedOn:)``), so the state and
    /// every instance forget them and their username is free; account storage forgets their
    /// password and ends their sessions on every instance. Should the process die between the
    /// two, their sessions name an account that no longer exists, which signs no one in, until
    /// the next start-up erases them and the password (``SessionKeeper/eraseDeletedAccounts(from:in:)``).
    /// Their photo is returned for the photo keeper to free.
    package func deleteAccount(of user: User, password: String, client: String?) async throws -> AccountDeletionState {
        switch try await checkOwnPassword(password, of: user, client: client) {
        case .refused(let refusal): return .showing(.refused(refusal))
        case .wrong: return .showing(.confirming(wrongPassword: true))
        case .right(let checked):
            guard try await passwordHash(of: user) == checked.encoded else { return .showing(.confirming(wrongPassword: true)) }
        }
        switch try await store.dispatch(.deleteAccount(user.id, at: now())) {
        case .success(.accountDeleted(_, let photo)):
            try await sessions.erase(user.id)
            return .deleted(photo: photo)
        case .success(let event):
            throw AccountsError.unexpected("\(event)")
        case .failure(.userNotFound):
            // Deleted meanwhile, from another browser: what is left is the same to end.
            try await sessions.erase(user.id)
            return .deleted(photo: nil)
        case .failure(let rejection):
            throw AccountsError.unexpected("\(rejection)")
        }
    }
}

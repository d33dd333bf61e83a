package import Foundation
package import Store

/// The logic of a person's export (SPEC.md `GET /profile/export`): their profile, the quotes they
/// added that still exist (hidden ones too), and every version they made, read from the state and the journal.
/// No HTTP, no HTML, and no secret but the person's own addresses: the state it returns holds no
/// session or token, and the view writes none of the account's password hash.
package struct ExportController: Sendable {
    private let store: any StateStore
    /// Their email addresses, which are theirs to take with them.
    private let mail: any MailStorage
    private let now: @Sendable () -> Date

    package init(store: any StateStore, mail: any MailStorage, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.mail = mail
        self.now = now
    }

    /// Everything `user` made. The versions are read after the state, so every version the state
    /// shows is among them (a version is published only once its entry is committed); one made
    /// in between may be there too.
    package func export(of user: UserID) async throws(StoreError) -> ExportState {
        let state = store.state
        guard let person = state.users[user] else { return .notFound }
        let visible = state.quotes.ids(addedBy: user).compactMap { state.quotes[$0] }
        // Hidden quotes are out of the book but still theirs: in id order (the order of adding)
        // among the rest, when the text hidden is their own (someone else's is hidden from them
        // too; their own versions of it are among `versions`).
        let hidden = state.moderation.hidden.values.map(\.quote).filter { $0.addedBy == user && $0.updatedBy == user }
        let added = (visible + hidden).sorted { $0.id < $1.id }
        let versions = try await store.versions(madeBy: user)
        return .exported(
            ProfileExport(
                user: person, favourite: person.favourite.flatMap { state.quotes[$0] }, addedQuotes: added,
                hiddenQuotes: Set(hidden.map(\.id)), versions: versions, email: try await mail.addresses(of: user), exportedAt: now()))
    }
}

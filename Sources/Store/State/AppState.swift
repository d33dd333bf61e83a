/// Everything Quotebook knows, rebuilt at start-up from the latest snapshot and the journal
/// entries after it.
///
/// Current data only: a quote's earlier versions are read from the journal when asked for
/// (``Store/history(of:)``), so memory and snapshots cost what the book costs now, however long
/// its history. A value: the store publishes copies, so readers never see a change half-made.
/// Snapshots store it in a compact binary form of their own (``SnapshotFormat``); the journal of
/// actions stays the record.
package struct AppState: Sendable, Equatable {
    /// Every quote by id.
    package var quotes = QuoteTable()
    /// Quote ids in the order they were added (oldest first).
    package var quoteOrder: [QuoteID] = []
    /// The quote most recently added or edited: the favourite shown to someone without one.
    package var lastChangedQuote: QuoteID?
    /// The id the next added quote receives.
    package var nextQuoteID = QuoteID(1)
    /// Every account by id.
    package var users: [UserID: User] = [:]
    /// Account ids by (lower-case) username.
    package var userIDsByName: [Username: UserID] = [:]
    /// The id the next account receives.
    package var nextUserID = UserID(1)
    /// Every quote's folded text and author, for search; derived from ``quotes`` and kept in
    /// step with it by the reducer.
    package var searchIndex = QuoteSearchIndex()
    /// Moderators, suspensions, hidden quotes, open reports and the moderation log.
    package var moderation = ModerationState()

    package init() {}

    /// The favourite quote of account `user`, read where the account lies: the subscript copies
    /// the whole account out (its names and photo retained) to read one field.
    package func favourite(of user: UserID) -> QuoteID? {
        guard let index = users.index(forKey: user) else { return nil }
        return users.values[index].favourite
    }

    /// The account called `username`, if any.
    package func user(named username: Username) -> User? {
        userIDsByName[username].flatMap { users[$0] }
    }

    /// The ids of the newest quotes, newest first (the order they were added), at most `limit`:
    /// the order's end, read backwards, with nothing copied.
    package func newestQuoteIDs(limit: Int) -> Slice<ReversedCollection<[QuoteID]>> {
        quoteOrder.reversed().prefix(limit)
    }
}

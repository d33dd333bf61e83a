/// What logic controllers need of the model controller: the current state and a way to change
/// it. ``Store`` is the real one; unit tests pass a double.
package protocol StateStore: Sendable {
    /// The current state, a consistent copy.
    var state: AppState { get }
    /// The current state and its revision, shared, for a request that reads a few of its tables
    /// (``PublishedState``): reach them through it, since a copy of `state` retains every table.
    var publishedState: PublishedState { get }
    /// Validates, records and applies `action`; see ``Store/dispatch(_:)``.
    func dispatch(_ action: AppAction) async throws(StoreError) -> Result<AppEvent, ActionRejection>
    /// Versions `versions` of quote `id` that exist, oldest first, read from the journal; see
    /// ``Store/history(of:versions:)``.
    func history(of id: QuoteID, versions: ClosedRange<Int>) async throws(StoreError) -> [QuoteVersion]
    /// Every version `person` made, oldest first; see ``Store/versions(madeBy:)``.
    func versions(madeBy person: UserID) async throws(StoreError) -> [MadeVersion]
    /// The newest journal entry the current ``state`` includes; see ``Store/appliedJournalSequence``.
    var appliedJournalSequence: Int64 { get }
    /// Applies what other processes appended to a shared journal, now; see
    /// ``Store/catchUpWithJournal()``.
    func catchUpWithJournal() async
}

extension Store: StateStore {}

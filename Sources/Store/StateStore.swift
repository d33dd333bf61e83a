/// What logic controllers need of the model controller: the current state and a way to change
/// it. ``Store`` is the real one; unit tests pass a double.
package protocol StateStore: Sendable {
    /// The current state, a consistent copy.
    var state: AppState { get }
    /// Validates, records and applies `action`; see ``Store/dispatch(_:)``.
    func dispatch(_ action: AppAction) async throws(StoreError) -> Result<AppEvent, ActionRejection>
    /// Every version of quote `id`, oldest first; see ``Store/history(of:)``.
    func history(of id: QuoteID) async throws(StoreError) -> [QuoteVersion]
}

extension Store: StateStore {}

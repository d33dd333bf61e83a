/// One version of the state as the store publishes it, with its revision: shared by reference,
/// so a reader takes it with one retain.
///
/// A copy of ``AppState`` retains each of its tables (eleven: quotes, order, accounts, names,
/// the search index's keys and results, moderators, suspensions, hidden quotes, reports, the
/// log) and releases them again when it is dropped, on counts both event loops' cores write:
/// two copies a signed-in page (who is asking, then what the page shows) were forty-four atomic
/// operations on shared cache lines. Reach the tables through it (`published.state.users[id]`),
/// and pass the box on: binding its `state` to a name, or passing `state` to a function, copies
/// the whole value again (objdump shows the outlined copy). Immutable, so sending it between
/// threads is safe.
package final class PublishedState: Sendable {
    package let state: AppState
    /// Grows by one with every applied action (0 at start-up); see ``Store/revision``.
    package let revision: UInt64

    package init(_ state: AppState, revision: UInt64) {
        self.state = state
        self.revision = revision
    }
}

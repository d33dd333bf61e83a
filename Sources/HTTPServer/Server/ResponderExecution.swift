/// Where the task that runs the responder executes.
package enum ResponderExecution: Sendable, Equatable {
    /// On Swift's global concurrent executor (the cooperative pool); the response comes back
    /// to the connection's loop through its inbox. Safe for any responder: a slow one (CPU-heavy
    /// password hashing, say) never delays other connections' I/O.
    case cooperativePool
    /// On the connection's own event-loop thread, as a task preferring that loop as its
    /// `TaskExecutor` (SE-0417). Saves two thread hops per request; the responder must not
    /// block or compute for long, since every connection of that loop waits meanwhile. Awaits
    /// on actors with their own executors (the store) still hop there and back.
    case eventLoop
}

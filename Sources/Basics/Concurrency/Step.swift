/// A value that is ready now, or the work that must wait for it (the database, a password hash).
///
/// One now/later type from the server to the controllers: a responder answers a
/// `Step<HTTPResponse>`, the request chain and the child coordinators pass steps on, and a logic
/// controller returns a step for what may wait. While every step is `.now` a request runs to the
/// end on the event loop that asked; at the first `.later` the rest of the chain moves into that
/// work, which the server awaits in a task. One code path whether or not anything waits: no
/// fast copy beside a slow one.
package enum Step<Value: Sendable>: Sendable {
    /// Ready: used on the thread that asked (for a response, sent from the event loop).
    case now(Value)
    /// Must wait for something (a database, a password hash): run in a task.
    case later(@Sendable () async throws -> Value)

    /// Feeds this step's value to `next`: at once when it is ready, else after the wait.
    package func then<Next: Sendable>(_ next: @escaping @Sendable (Value) -> Step<Next>) -> Step<Next> {
        switch self {
        case .now(let value):
            return next(value)
        case .later(let work):
            return .later { try await next(try await work()).value() }
        }
    }

    /// This step with any error its work throws turned into a value by `handler`.
    package func recovering(_ handler: @escaping @Sendable (any Error) -> Value) -> Step {
        switch self {
        case .now: self
        case .later(let work):
            .later {
                do { return try await work() } catch { return handler(error) }
            }
        }
    }

    /// The value, awaiting the work if there is any.
    package func value() async throws -> Value {
        switch self {
        case .now(let value): value
        case .later(let work): try await work()
        }
    }

    /// The value if it is ready now, else nil.
    package var immediateValue: Value? {
        if case .now(let value) = self { return value }
        return nil
    }
}

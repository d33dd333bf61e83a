/// Turns a request into a response; the application's single entry point from the server.
///
/// It never throws: expected failures are responses, and the application turns its own
/// faults into 500 pages at its boundary.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The response to `request` if it can be made at once without waiting for anything, or nil
    /// to have ``respond(to:)`` answer it as usual.
    ///
    /// The server asks this first, on the connection's event-loop thread, and sends a non-nil
    /// answer straight away: no task, no hop to the cooperative pool and back. So it must never
    /// block, await or compute for long (every connection of that loop waits meanwhile), and a
    /// non-nil answer must be the one ``respond(to:)`` would have given. The default answers nil.
    func respondImmediately(to request: HTTPRequest) -> HTTPResponse?

    /// The response to a request whose body has not been read yet, if its head alone decides it
    /// (a POST whose cookies cannot pass the CSRF check), or nil to read the body and go on.
    /// `request` is the head with an empty body. A non-nil answer is sent without reading the
    /// body, which is dropped as the connection closes; it must be the answer ``respond(to:)``
    /// would give whatever the body. Called on an event-loop thread, like
    /// ``respondImmediately(to:)``: never block. The default answers nil.
    func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse?

    /// The server answered a request with `rejection` itself, before (or instead of) calling
    /// ``respond(to:)``: it was malformed, over a limit or too slow. Called on an event-loop
    /// thread, so it must be quick and never block; the default does nothing.
    func rejected(_ rejection: HTTPRejection)
}

extension HTTPResponder {
    /// Always nil: every request goes through ``respond(to:)``.
    package func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { nil }

    /// Always nil: every body is read.
    package func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse? { nil }

    package func rejected(_ rejection: HTTPRejection) {}
}

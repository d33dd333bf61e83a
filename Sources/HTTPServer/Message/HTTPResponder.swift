/// Turns a request into a response; the application's single entry point from the server.
///
/// It never throws: expected failures are responses, and the application turns its own
/// faults into 500 pages at its boundary.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse
    /// The server answered a request with `rejection` itself, before (or instead of) calling
    /// ``respond(to:)``: it was malformed, over a limit or too slow. Called on an event-loop
    /// thread, so it must be quick and never block; the default does nothing.
    func rejected(_ rejection: HTTPRejection)
}

extension HTTPResponder {
    package func rejected(_ rejection: HTTPRejection) {}
}

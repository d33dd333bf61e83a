/// Turns a request into a response; the application's single entry point from the server.
///
/// It never throws: expected failures are responses, and the application turns its own
/// faults into 500 pages at its boundary.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

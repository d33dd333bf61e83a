import App
package import HTTPServer

extension HTTPResponder {
    /// The answer when ``HTTPResponder/reply(to:)`` has it at once (on the event loop), else nil:
    /// the request must wait for something.
    package func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        reply(to: request).immediateResponse
    }
}

import App
import Basics
package import HTTPServer

extension HTTPResponder {
    /// The answer when ``HTTPResponder/reply(to:in:)`` has it at once (on the event loop), else
    /// nil: the request must wait for something.
    package func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        reply(to: request, in: prepare(request)).immediateValue
    }

    /// The answer the head `head` alone gives at once, as the server asks before reading a body
    /// (``HTTPResponder/replyBeforeBody(in:)``), else nil.
    package func respondBeforeBody(to head: HTTPRequest) -> HTTPResponse? {
        replyBeforeBody(in: prepare(head))?.immediateValue
    }
}

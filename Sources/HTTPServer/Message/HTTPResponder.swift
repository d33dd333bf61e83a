/// Turns a request into a response; the application's single entry point from the server.
///
/// It never throws: expected failures are responses, and the application turns its own
/// faults into 500 pages at its boundary.
///
/// A responder implements one of the two ways to answer; each has a default in terms of the
/// other. ``reply(to:)`` says whether the answer is ready at once or must wait; ``respond(to:)``
/// always may wait (the simple form, for responders that do not care where they run).
package protocol HTTPResponder: Sendable {
    /// The answer to `request`: ready now, or work to await.
    ///
    /// The server asks this on the connection's event-loop thread and sends a `.now` answer
    /// straight away: no task, no hop to the cooperative pool and back. So it must never block,
    /// await or compute for long (every connection of that loop waits meanwhile): whatever must
    /// wait goes in a `.later`, which the server runs in a task the connection owns. The default
    /// is `.later` around ``respond(to:)``.
    func reply(to request: HTTPRequest) -> HTTPReply

    /// The answer to `request`, whenever it is ready. The default awaits ``reply(to:)``.
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The response to a request whose body has not been read yet, if its head alone decides it
    /// (a POST whose cookies cannot pass the CSRF check), or nil to read the body and go on.
    /// `request` is the head with an empty body. A non-nil answer is sent without reading the
    /// body, which is dropped as the connection closes; it must be the answer ``reply(to:)``
    /// would give whatever the body. Called on an event-loop thread, like ``reply(to:)``:
    /// never block. The default answers nil.
    func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse?

    /// The answer to a request whose body the server refused to read (``HTTPRequest/bodyRefusal``:
    /// over its limit), from the head alone; whatever of the body arrives is dropped and the
    /// connection closes after the answer, lingering so the client can read it. Asked on an
    /// event-loop thread, like ``reply(to:)``. The default is the server's own short text 413.
    func replyToRefusedBody(_ request: HTTPRequest) -> HTTPReply

    /// The server answered a request with `rejection` itself, before (or instead of) calling
    /// ``reply(to:)``: it was malformed, over a limit or too slow. Called on an event-loop
    /// thread, so it must be quick and never block; the default does nothing.
    func rejected(_ rejection: HTTPRejection)
}

/// What a responder answers: a response made at once, or the work that makes it later.
package enum HTTPReply: Sendable {
    /// Ready: sent from the event loop that asked.
    case now(HTTPResponse)
    /// Must wait for something (a database, a password hash): run in a task.
    case later(@Sendable () async -> HTTPResponse)

    /// The response, awaiting the work if there is any.
    package func response() async -> HTTPResponse {
        switch self {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    /// The response if it is ready now, else nil.
    package var immediateResponse: HTTPResponse? {
        if case .now(let response) = self { return response }
        return nil
    }
}

extension HTTPResponder {
    /// Always `.later`: the request goes through ``respond(to:)``.
    package func reply(to request: HTTPRequest) -> HTTPReply {
        .later { await respond(to: request) }
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        await reply(to: request).response()
    }

    /// Always nil: every body is read.
    package func respondBeforeBody(to request: HTTPRequest) -> HTTPResponse? { nil }

    package func rejected(_ rejection: HTTPRejection) {}

    /// The text 413 of a rejection (``HTTPResponse/rejection(_:)``).
    package func replyToRefusedBody(_ request: HTTPRequest) -> HTTPReply {
        switch request.bodyRefusal {
        case .tooLarge(let limit)?: .now(.rejection(HTTPRejection(.contentTooLarge, "body over \(limit) bytes")))
        case nil: reply(to: request)
        }
    }
}

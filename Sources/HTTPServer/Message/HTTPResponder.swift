package import Basics

/// Turns a request into a response; the application's single entry point from the server.
///
/// It never throws: expected failures are responses, and the application turns its own
/// faults into 500 pages at its boundary (work that throws anyway is answered the server's
/// text 500, ``Basics/Step/response()``).
///
/// Each request is prepared once, from its head (``prepare(_:)``): the responder's
/// ``Context`` (what it reads from the head, such as the route and the cookies) is kept by the
/// server, with the connection, while the body is read, and handed back with the whole request.
/// A responder implements one of the two ways to answer; each has a default in terms of the
/// other. ``reply(to:in:)`` says whether the answer is ready at once or must wait;
/// ``respond(to:)`` always may wait (the simple form, for responders that do not care where
/// they run).
package protocol HTTPResponder: Sendable {
    /// What the responder learns from a request's head, once per request; by default the head
    /// itself.
    associatedtype Context: Sendable = HTTPRequest

    /// The context of the request whose head is `head` (a request with an empty body). Asked
    /// once per request on the connection's event-loop thread, as soon as the head is complete:
    /// before the body is read, for a request that has one. It must never block.
    func prepare(_ head: HTTPRequest) -> Context

    /// The answer to `request`, prepared as `context`: ready now, or work to await.
    ///
    /// The server asks this on the connection's event-loop thread and sends a `.now` answer
    /// straight away: no task, no hop to the cooperative pool and back. So it must never block,
    /// await or compute for long (every connection of that loop waits meanwhile): whatever must
    /// wait goes in a `.later`, which the server runs in a task the connection owns. The default
    /// is `.later` around ``respond(to:)``.
    func reply(to request: HTTPRequest, in context: Context) -> Step<HTTPResponse>

    /// The answer to `request`, whenever it is ready. The default awaits ``reply(to:in:)``.
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// The answer to a request whose body has not been read yet, if its head alone decides it
    /// (a POST whose cookies cannot pass the CSRF check), or nil to read the body and go on.
    /// `context` is the one ``prepare(_:)`` made of the head. A `.now` answer is sent without
    /// reading the body, which is dropped as the connection closes; a `.later` one (it must
    /// wait, say for the database) is awaited instead of ``reply(to:in:)`` once the body has
    /// been read. Either must be the answer ``reply(to:in:)`` would give whatever the body.
    /// Called on an event-loop thread, like ``reply(to:in:)``: never block. The default
    /// answers nil.
    func replyBeforeBody(in context: Context) -> Step<HTTPResponse>?

    /// The answer to a request whose body the server refused to read (``HTTPRequest/bodyRefusal``:
    /// over its limit), from the head alone; whatever of the body arrives is dropped and the
    /// connection closes after the answer, lingering so the client can read it. Asked on an
    /// event-loop thread, like ``reply(to:in:)``. The default is the server's own short text 413.
    func replyToRefusedBody(_ request: HTTPRequest, in context: Context) -> Step<HTTPResponse>

    /// The server answered a request with `rejection` itself, before (or instead of) calling
    /// ``reply(to:in:)``: it was malformed, over a limit or too slow. Called on an event-loop
    /// thread, so it must be quick and never block; the default does nothing.
    func rejected(_ rejection: HTTPRejection)
}

extension HTTPResponder where Context == HTTPRequest {
    /// The head itself.
    package func prepare(_ head: HTTPRequest) -> HTTPRequest { head }
}

extension HTTPResponder {
    /// Always `.later`: the request goes through ``respond(to:)``.
    package func reply(to request: HTTPRequest, in context: Context) -> Step<HTTPResponse> {
        .later { await respond(to: request) }
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        await reply(to: request, in: prepare(request)).response()
    }

    /// Always nil: every body is read.
    package func replyBeforeBody(in context: Context) -> Step<HTTPResponse>? { nil }

    package func rejected(_ rejection: HTTPRejection) {}

    /// The text 413 of a rejection (``HTTPResponse/rejection(_:)``).
    package func replyToRefusedBody(_ request: HTTPRequest, in context: Context) -> Step<HTTPResponse> {
        switch request.bodyRefusal {
        case .tooLarge(let limit)?: .now(.rejection(HTTPRejection(.contentTooLarge, "body over \(limit) bytes")))
        case nil: reply(to: request, in: context)
        }
    }
}

extension Step where Value == HTTPResponse {
    /// The response, awaiting the work if there is any; work that throws (a responder should
    /// not let it) is answered the server's text 500.
    package func response() async -> HTTPResponse {
        do { return try await value() } catch {
            return .rejection(HTTPRejection(.internalServerError, "the responder failed"))
        }
    }
}

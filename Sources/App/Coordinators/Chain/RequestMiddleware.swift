import Basics
import HTTPServer

/// What answers a request that reaches it: the chain from one link on, or its last link.
protocol RequestHandler: AnyObject, Sendable {
    func handle(_ context: RequestContext) -> Step<HTTPResponse>
}

/// One link of the request chain (`AppCoordinator+Chain.swift`): it answers the request
/// itself, or calls `next` exactly once and may work on what comes back. Nothing else calls a
/// link, so each is entered once per request, its before and after parts around its one call.
///
/// A link that needs no I/O answers `.now` and the request stays on the event loop; one that
/// must wait answers `.later`, and calls `next` inside that work. Links are final classes made
/// once at start-up (``RequestChain``), so passing one along is passing a reference.
protocol RequestMiddleware: AnyObject, Sendable {
    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse>
}

/// A link that also works on the answer coming back through it: its after part.
protocol AnswerAmending: Sendable {
    /// The answer to `context`'s request once this link has seen it (moved in, so that adding
    /// a field copies no headers).
    func amend(_ response: consuming HTTPResponse, for context: RequestContext) -> HTTPResponse
}

extension Step where Value == HTTPResponse {
    /// This step's response through `link`'s after part: at once when it is ready, else after
    /// the wait (only then is a closure made).
    consuming func amended(by link: some AnswerAmending, for context: RequestContext) -> Step {
        switch consume self {
        case .now(let response): .now(link.amend(response, for: context))
        case .later(let work): .later { link.amend(try await work(), for: context) }
        }
    }
}

import Basics
import HTTPServer

/// The request chain: its links in order, then the handler that answers whatever they let past.
struct RequestChain<Links: RequestMiddleware, Last: RequestHandler>: RequestHandler {
    let links: Links
    let last: Last

    init(@MiddlewareList _ links: () -> Links, then last: Last) {
        self.links = links()
        self.last = last
    }

    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        links.handle(context, next: last)
    }
}

/// Composes the lines of a ``RequestChain``'s list, first (outermost) to last.
@resultBuilder
enum MiddlewareList {
    static func buildPartialBlock<First: RequestMiddleware>(first: First) -> First {
        first
    }

    static func buildPartialBlock<Outer: RequestMiddleware, Inner: RequestMiddleware>(
        accumulated: Outer, next: Inner
    ) -> MiddlewarePair<Outer, Inner> {
        MiddlewarePair(outer: accumulated, inner: next)
    }
}

/// Two links in order: `inner` is the `next` of `outer`.
struct MiddlewarePair<Outer: RequestMiddleware, Inner: RequestMiddleware>: RequestMiddleware {
    let outer: Outer
    let inner: Inner

    func handle(_ context: RequestContext, next: some RequestHandler) -> Step<HTTPResponse> {
        outer.handle(context, next: ChainLink(middleware: inner, next: next))
    }
}

/// A link with the rest of the chain behind it: a value made on the stack as a request passes.
struct ChainLink<Middleware: RequestMiddleware, Next: RequestHandler>: RequestHandler {
    let middleware: Middleware
    let next: Next

    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        middleware.handle(context, next: next)
    }
}

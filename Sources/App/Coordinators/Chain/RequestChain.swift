import Basics
import HTTPServer

/// The request chain: its links in order, then the handler that answers whatever they let past.
///
/// The links are objects made once at start-up and held in an array; a request passes through
/// them by index (``RequestNext``). Nothing is copied or allocated per link as a request goes:
/// a first, generic design nested each link and the rest of the chain in structs made per
/// request, and copying the last link's many references on every hop cost a fifth of the
/// server's CPU on a signed-in page (perf, issue 32).
final class RequestChain: RequestHandler {
    private let links: [any RequestMiddleware]
    private let last: any RequestHandler

    init(_ links: [any RequestMiddleware], then last: any RequestHandler) {
        self.links = links
        self.last = last
    }

    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        handle(context, from: 0)
    }

    /// The answer of link `index` on, or of the last handler past the links.
    fileprivate func handle(_ context: RequestContext, from index: Int) -> Step<HTTPResponse> {
        guard index < links.count else { return last.handle(context) }
        return links[index].handle(context, next: RequestNext(chain: self, index: index + 1))
    }
}

/// The rest of the chain behind a link: what its `next` calls.
struct RequestNext: Sendable {
    fileprivate let chain: RequestChain
    fileprivate let index: Int

    /// The answer of the rest of the chain.
    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        chain.handle(context, from: index)
    }
}

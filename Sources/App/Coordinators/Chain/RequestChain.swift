import Basics
import HTTPServer

/// The request chain: its links in order, then the handler that answers whatever they let past.
///
/// The links are objects made once at start-up and held in an array; a request passes through
/// them by index (``RequestNext``). Nothing is copied or allocated per link as a request goes:
/// a first, generic design nested each link and the rest of the chain in structs made per
/// request, and copying the last link's many references on every hop cost a fifth of the
/// server's CPU on a signed-in page (perf, issue 32).
///
/// A request enters each link without retaining it: a retain and a release of each link, objects
/// both event loops share, were 12 of the 100 reference counts a signed-in page made on shared
/// objects, each several times the cost of one on an object a single thread touches
/// (refcounts.sh beside a profile). The links are held by `owners`; the chain reaches each
/// through an unretained reference to its ``Entry``, entered with `_withUnsafeGuaranteedRef`.
/// An existential read out of an array (or out of an `unowned(unsafe)` field) is copied, so
/// retained, before a requirement is called on it; a class reference made guaranteed is not.
final class RequestChain: RequestHandler {
    /// The links, unretained, in order. Safe: each is an object of `owners`, which holds it
    /// strongly for the chain's whole life, and the chain is alive while `handle` runs on it
    /// (its owner, the root coordinator, holds it, and so does every ``RequestNext``, which a
    /// link's later work captures).
    private let links: [Unmanaged<Entry>]
    /// The links' entries, held strongly.
    private let owners: [Entry]
    private let last: any RequestHandler

    init(_ links: [any RequestMiddleware], then last: any RequestHandler) {
        owners = links.map { Self.entry(for: $0) }
        self.links = owners.map { .passUnretained($0) }
        self.last = last
    }

    /// A link's entry, made for its concrete type (opened from the existential).
    private static func entry(for middleware: some RequestMiddleware) -> Entry {
        LinkEntry(middleware)
    }

    func handle(_ context: RequestContext) -> Step<HTTPResponse> {
        handle(context, from: 0)
    }

    /// The answer of link `index` on, or of the last handler past the links.
    fileprivate func handle(_ context: RequestContext, from index: Int) -> Step<HTTPResponse> {
        guard index < links.count else { return last.handle(context) }
        return links[index]._withUnsafeGuaranteedRef { $0.handle(context, next: RequestNext(chain: self, index: index + 1)) }
    }
}

extension RequestChain {
    /// How the chain enters a link: a class, so that an unretained reference to it can be
    /// made guaranteed for the call. Only ``LinkEntry`` is ever made. Safe as Sendable: it has no
    /// stored properties (a class that is not final cannot be checked).
    fileprivate class Entry: @unchecked Sendable {
        func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
            preconditionFailure("RequestChain.Entry is abstract: LinkEntry overrides handle")
        }
    }

    /// The entry of one link of type `Link`, which it holds as a `let`, so entering it reads the
    /// link in place. Safe as Sendable: its one stored property is immutable and Sendable.
    fileprivate final class LinkEntry<Link: RequestMiddleware>: Entry, @unchecked Sendable {
        let link: Link

        init(_ link: Link) {
            self.link = link
        }

        override func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
            link.handle(context, next: next)
        }
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

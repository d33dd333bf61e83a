import Basics
package import HTTPServer

/// Finished responses to signed-out GETs of the quote book's pages, by request target, for one
/// store revision: a page that nothing about changed is sent again without routing, reading the
/// state or rendering.
///
/// A page is a function of the state, who is asking and the target (the same reasoning as its
/// `ETag`, ``PageTagMiddleware``). The cache holds only pages whose visitor is nobody — no account,
/// no CSRF token, no cookie to set — so every entry is what any cookie-less request for its
/// target would be rendered. It is keyed by the store's revision, read before the state: a
/// request that finds a newer revision than the cache's drops every entry, and one that read an
/// older revision neither finds nor stores anything. So no page is served from before a change
/// its request could see, without any observer to run on a write.
///
/// Bounded: a ``BoundedCache`` of at most ``maximumBytes`` of bodies, which starts over empty
/// when a page would pass them (searches can name any number of targets; the common pages come
/// back at once), and whose revision is the store's.
///
/// Ownership: the pages sit in the ``BoundedCache``'s `Mutex`, taken by every event loop for one
/// look-up or insert; responses are values, so handing one out copies references, not bytes.
package final class PageCache: Sendable {
    /// A cached page: the response as sent, and what a hit needs to answer like a render would.
    package struct Entry: Sendable {
        package var response: HTTPResponse
        /// The page's `ETag`, for answering `If-None-Match` with a 304.
        package var tag: String
        /// The route that answered, for the request counters.
        package var routeLabel: RouteLabel

        package init(response: HTTPResponse, tag: String, routeLabel: RouteLabel) {
            self.response = response
            self.tag = tag
            self.routeLabel = routeLabel
        }
    }

    /// Body bytes held before the cache starts over.
    package var maximumBytes: Int { pages.costLimit }
    private let pages: BoundedCache<String, Entry>

    package init(maximumBytes: Int = 8 << 20) {
        pages = BoundedCache(costLimit: maximumBytes) { $0.response.body.count }
    }

    /// The page for `target` rendered at `revision`, if cached.
    package func entry(for target: String, revision: UInt64) -> Entry? {
        pages.value(forKey: target, revision: revision)
    }

    /// Keeps `entry` as the page for `target` at `revision`; ignored when the cache already holds
    /// a newer revision (the entry was rendered from an older state than the pages it holds).
    package func store(_ entry: Entry, for target: String, revision: UInt64) {
        pages.insert(entry, forKey: target, revision: revision)
    }

    /// How many pages are cached now (for tests).
    package var count: Int { pages.count }
}

package import HTTPServer
import Synchronization

/// Finished responses to signed-out GETs of the quote book's pages, by request target, for one
/// store revision: a page that nothing about changed is sent again without routing, reading the
/// state or rendering.
///
/// A page is a function of the state, who is asking and the target (the same reasoning as its
/// `ETag`, ``AppCoordinator``). The cache holds only pages whose visitor is nobody — no account,
/// no CSRF token, no cookie to set — so every entry is what any cookie-less request for its
/// target would be rendered. It is keyed by the store's revision, read before the state: a
/// request that finds a newer revision than the cache's drops every entry, and one that read an
/// older revision neither finds nor stores anything. So no page is served from before a change
/// its request could see, without any observer to run on a write.
///
/// Bounded: once the bodies it holds pass ``maximumBytes`` it starts over empty (searches can
/// name any number of targets; the common pages come back at once).
///
/// Ownership: the entries sit in one `Mutex`, taken by every event loop for one dictionary look-up
/// or insert; responses are values, so handing one out copies references, not bytes.
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

    private struct Generation {
        var revision: UInt64 = 0
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    /// Body bytes held before the cache starts over.
    package let maximumBytes: Int
    private let generation = Mutex(Generation())

    package init(maximumBytes: Int = 8 << 20) {
        self.maximumBytes = maximumBytes
    }

    /// The page for `target` rendered at `revision`, if cached.
    package func entry(for target: String, revision: UInt64) -> Entry? {
        generation.withLock { $0.revision == revision ? $0.entries[target] : nil }
    }

    /// Keeps `entry` as the page for `target` at `revision`; ignored when the cache already holds
    /// a newer revision (the entry was rendered from an older state than the pages it holds).
    package func store(_ entry: Entry, for target: String, revision: UInt64) {
        let size = entry.response.body.count
        guard size <= maximumBytes else { return }
        // The dropped generation is returned and released after the lock: freeing its bodies
        // takes no one else's time.
        _ = generation.withLock { generation -> [String: Entry]? in
            var dropped: [String: Entry]?
            if revision != generation.revision || generation.bytes + size > maximumBytes {
                guard revision >= generation.revision else { return nil }
                dropped = generation.entries
                generation = Generation(revision: revision)
            }
            if let old = generation.entries.updateValue(entry, forKey: target) { generation.bytes -= old.response.body.count }
            generation.bytes += size
            return dropped
        }
    }

    /// How many pages are cached now (for tests).
    package var count: Int {
        generation.withLock { $0.entries.count }
    }
}

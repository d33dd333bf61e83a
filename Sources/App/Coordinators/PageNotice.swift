package import Store

/// A sentence the next page shows once, after a redirect (a "flash"): the answer to a POST sets
/// it as a short-lived cookie beside its 303, and the request that follows reads and deletes it
/// (``NoticeMiddleware``), so the address the 303 names is the page's own (SPEC.md: "303 to
/// `/quotes/{id}` with a thank-you notice") and a reload shows the page without it.
///
/// The cookie says which notice and for which page; one for another page, or that does not
/// parse, shows nothing (and is deleted all the same).
package enum PageNotice: Sendable, Equatable {
    /// The visitor reported this quote (or had already): its page thanks them.
    case reported(QuoteID)

    /// How long the cookie lives unread: the redirect is followed at once.
    static let lifetime = 60

    /// The cookie's value: a word and a number, nothing a cookie must escape.
    var cookieValue: String {
        switch self {
        case .reported(let id): "reported-\(id.rawValue)"
        }
    }

    /// The notice a cookie's value names; nil for anything else.
    init?(cookieValue: String) {
        let prefix = "reported-"
        guard cookieValue.hasPrefix(prefix), let id = PathSegments.identifier(String(cookieValue.dropFirst(prefix.count))) else {
            return nil
        }
        self = .reported(QuoteID(id))
    }
}

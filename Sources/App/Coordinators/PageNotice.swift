package import Store

/// A sentence the next page shows once, after a redirect (a "flash"): the answer to a POST sets
/// it as a short-lived cookie beside its 303, and the request that follows reads and deletes it
/// (``NoticeMiddleware``), so the address the 303 names is the page's own (SPEC.md: "303 to
/// `/quotes/{id}` with a thank-you notice") and a reload shows the page without it.
///
/// The cookie says which notice and for which page. Only a GET of that page reads it: another
/// request meanwhile (a stylesheet, a live page's stream, another tab) leaves it for the page.
/// One that does not parse is deleted by whichever request meets it.
///
/// Not signed: it grants nothing, and a made-up one can only show its maker a thank-you.
package enum PageNotice: Sendable, Equatable {
    /// The visitor reported this quote (or had already): its page thanks them.
    case reported(QuoteID)

    /// What a ``reported(_:)`` notice's value starts with, before the quote's id.
    private static let reportedPrefix = "reported-"

    /// How long the cookie lives unread: the redirect is followed at once.
    static let lifetime = 60

    /// The cookie's value: a word and a number, nothing a cookie must escape.
    var cookieValue: String {
        switch self {
        case .reported(let id): Self.reportedPrefix + String(id.rawValue)
        }
    }

    /// Whether this notice is for the page `route` names.
    func isShown(on route: AppRoute) -> Bool {
        switch self {
        case .reported(let id): route == .quotes(.show(id))
        }
    }

    /// The notice a cookie's value names; nil for anything else.
    init?(cookieValue: String) {
        guard cookieValue.hasPrefix(Self.reportedPrefix),
            let id = PathSegments.identifier(String(cookieValue.dropFirst(Self.reportedPrefix.count)))
        else {
            return nil
        }
        self = .reported(QuoteID(id))
    }
}

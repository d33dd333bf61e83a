package import Store

/// Who is making a request, as the root coordinator found out from the cookies: the signed-in
/// person and their session, or nobody; and the CSRF token the page's forms carry.
package struct Visitor: Sendable {
    /// What the visitor is, in one box made once a request (``VisitorMiddleware``): a visitor is
    /// copied several times a request (the coordinator, the page tag, the renderer), and each
    /// copy of the fields retained the account's strings and the token, which the state and the
    /// token cache share across both event loops, where a copy of the box retains the box, made
    /// for this request on this loop. Nil for a signed-out visitor without a token.
    private final class Storage: Sendable {
        let user: User?
        let session: SessionRecord?
        let csrfToken: String?
        let isModerator: Bool

        init(user: User?, session: SessionRecord?, csrfToken: String?, isModerator: Bool) {
            self.user = user
            self.session = session
            self.csrfToken = csrfToken
            self.isModerator = isModerator
        }
    }

    private var storage: Storage?

    package init(user: User? = nil, session: SessionRecord? = nil, csrfToken: String? = nil, isModerator: Bool = false) {
        // Matched, not compared with nil: `user == nil` copied the account out of the argument
        // (retaining its strings) to compare it; a pattern only looks at which case it is.
        let hasUser = if case .some = user { true } else { false }
        let isAnonymous = !hasUser && session == nil && csrfToken == nil && !isModerator
        storage = isAnonymous ? nil : Storage(user: user, session: session, csrfToken: csrfToken, isModerator: isModerator)
    }

    /// The signed-in person, nil when signed out.
    package var user: User? { storage?.user }
    package var session: SessionRecord? { storage?.session }
    /// The token for `csrf_token` fields; nil only for a signed-out visitor on a page without forms.
    package var csrfToken: String? {
        get { storage?.csrfToken }
        set { self = Visitor(user: user, session: session, csrfToken: newValue, isModerator: isModerator) }
    }
    /// The signed-in person may moderate (SPEC.md "Moderation").
    package var isModerator: Bool { storage?.isModerator ?? false }

    package var isSignedIn: Bool { storage?.user != nil }
}

package import Store

/// Who is making a request, as the root coordinator found out from the cookies: the signed-in
/// person and their session, or nobody; and the CSRF token the page's forms carry.
package struct Visitor: Sendable {
    /// The signed-in person, nil when signed out.
    package var user: User?
    package var session: SessionRecord?
    /// The token for `csrf_token` fields; nil only for a signed-out visitor on a page without forms.
    package var csrfToken: String?
    /// The signed-in person may moderate (SPEC.md "Moderation").
    package var isModerator: Bool

    package init(user: User? = nil, session: SessionRecord? = nil, csrfToken: String? = nil, isModerator: Bool = false) {
        self.user = user
        self.session = session
        self.csrfToken = csrfToken
        self.isModerator = isModerator
    }

    package var isSignedIn: Bool { user != nil }
}

import Basics
import Foundation
import HTTPServer
import Store

/// Who is asking: the signed-in person, from the session cookie, and the CSRF token their forms
/// carry; or a signed-out visitor with (or without) a pre-session cookie.
///
/// A session the cache knows is found at once; only a token the cache cannot answer for (not
/// cached, or due for its hourly "last used" write) waits for storage. A request whose path is
/// not one (not origin-form, or not UTF-8) is a 404 before anything else: nobody is asked for.
final class VisitorMiddleware: RequestMiddleware {
    let sessions: SessionKeeper
    let store: Store
    let csrf: CSRFProtection
    let cookies: AppCookies
    let now: @Sendable () -> Date

    init(sessions: SessionKeeper, store: Store, csrf: CSRFProtection, cookies: AppCookies, now: @escaping @Sendable () -> Date) {
        self.sessions = sessions
        self.store = store
        self.csrf = csrf
        self.cookies = cookies
        self.now = now
    }

    func handle(_ context: RequestContext, next: RequestNext) -> Step<HTTPResponse> {
        guard context.match != nil else { return next.handle(context) }
        let date = now()
        guard let token = cookies.value(.session, in: context.cookies) else {
            identify(context, session: nil, token: nil, date: date, in: nil)
            return next.handle(context)
        }
        switch sessions.cachedSession(forToken: token, now: date) {
        case .notAToken:
            identify(context, session: nil, token: token, date: date, in: store.publishedState)
            return next.handle(context)
        case .live(let session):
            // The state is read once for the request's visitor, the account and its suspension,
            // and shared, not copied (``PublishedState``).
            let published = store.publishedState
            guard published.state.users[session.userID] != nil else { return identifyLater(context, token: token, date: date, next: next) }
            identify(context, session: session, token: token, date: date, in: published)
            return next.handle(context)
        case .needsStorage:
            return identifyLater(context, token: token, date: date, next: next)
        }
    }

    /// Identifies the visitor once storage has answered for the session `token` names.
    private func identifyLater(_ context: RequestContext, token: String, date: Date, next: RequestNext) -> Step<HTTPResponse> {
        .later { [self, context] in
            let session = try await sessions.session(forToken: token, now: date)
            if let session, store.state.users[session.userID] == nil {
                // A session another instance started for an account it has just made: this
                // instance applies the sign-up from the shared journal a moment later, or now.
                await store.catchUpWithJournal()
            }
            identify(context, session: session, token: token, date: date, in: store.publishedState)
            return try await next.handle(context).value()
        }
    }

    /// Sets `context`'s visitor, given the session the cookie's `token` names (nil: none, or
    /// not live). The cookie is deleted only when the session is not live: a live one whose
    /// account this instance has not applied yet (made on another instance) is signed out for
    /// this request alone. `published` is the store's, read by the caller (nil only without a token).
    private func identify(_ context: RequestContext, session: SessionRecord?, token: String?, date: Date, in published: PublishedState?) {
        if let token, let published {
            if let session, case let (user, isModerator)? = Self.account(of: session, in: published) {
                if session.lastUsedAt == date, session.createdAt != date {
                    // Used again after an hour or more: the browser's copy gets a fresh lifetime too.
                    context.setCookies.append(cookies.session(token))
                }
                // The account's last use: moved into the visitor, not copied (its strings retained again).
                context.visitor = Visitor(
                    user: user, session: session, csrfToken: csrf.token(for: .session(id: session.id)), isModerator: isModerator)
                return
            }
            if session == nil { context.setCookies.append(cookies.deleting(.session)) }
        }
        if let value = cookies.value(.preSession, in: context.cookies), CSRFProtection.isPreSessionValue(value) {
            context.visitor = Visitor(csrfToken: csrf.token(for: .preSession(value)))
        }
    }

    /// The account `session` signs in, and whether they moderate; nil when the published state
    /// has no such account or it is suspended. A suspended person's sessions are ended with the suspension;
    /// one met meanwhile (on another instance, before its deletion is heard) signs no one in.
    /// Each table is read through `published`: a copy of its whole state retained every table.
    private static func account(of session: SessionRecord, in published: PublishedState) -> (user: User, isModerator: Bool)? {
        guard let user = published.state.users[session.userID], published.state.moderation.suspended[user.id] == nil else { return nil }
        return (user, published.state.moderation.isModerator(user.id))
    }
}

import Basics
import HTTPServer
import Foundation
import Store

/// Who is asking: the signed-in person, from the session cookie, and the CSRF token their forms
/// carry; or a signed-out visitor with (or without) a pre-session cookie.
///
/// A session the cache knows is found at once; only a token the cache cannot answer for (not
/// cached, or due for its hourly "last used" write) waits for storage.
struct VisitorGate: Sendable {
    let sessions: SessionKeeper
    let store: Store
    let csrf: CSRFProtection
    let cookies: AppCookies
    let now: @Sendable () -> Date

    func pass(_ context: RequestContext) -> Step<RequestContext> {
        let date = now()
        guard let token = cookies.value(.session, in: context.cookies) else {
            return .now(identified(context, session: nil, token: nil, date: date))
        }
        switch sessions.cachedSession(forToken: token, now: date) {
        case .notAToken:
            return .now(identified(context, session: nil, token: token, date: date))
        case .live(let session) where store.state.users[session.userID] != nil:
            return .now(identified(context, session: session, token: token, date: date))
        case .live, .needsStorage:
            return .later { [self] in
                let session = try await sessions.session(forToken: token, now: date)
                if let session, store.state.users[session.userID] == nil {
                    // A session another instance started for an account it has just made: this
                    // instance applies the sign-up from the shared journal a moment later, or now.
                    await store.catchUpWithJournal()
                }
                return identified(context, session: session, token: token, date: date)
            }
        }
    }

    /// `context` with its visitor, given the session the cookie's `token` names (nil: none, or
    /// not live). The cookie is deleted only when the session is not live: a live one whose
    /// account this instance has not applied yet (made on another instance) is signed out for
    /// this request alone.
    private func identified(_ context: RequestContext, session: SessionRecord?, token: String?, date: Date) -> RequestContext {
        if let token {
            let state = store.state
            // A suspended person's sessions are ended with the suspension; one met meanwhile (on
            // another instance, before its deletion is heard) signs no one in.
            if let session, let user = state.users[session.userID], state.moderation.suspended[user.id] == nil {
                if session.lastUsedAt == date, session.createdAt != date {
                    // Used again after an hour or more: the browser's copy gets a fresh lifetime too.
                    context.setCookies.append(sessionCookie(token))
                }
                context.visitor = Visitor(
                    user: user, session: session, csrfToken: csrf.token(for: .session(id: session.id)),
                    isModerator: state.moderation.isModerator(user.id))
                return context
            }
            if session == nil { context.setCookies.append(cookies.deleting(.session)) }
        }
        if let value = cookies.value(.preSession, in: context.cookies), CSRFProtection.isPreSessionValue(value) {
            context.visitor = Visitor(csrfToken: csrf.token(for: .preSession(value)))
        }
        return context
    }

    /// The session cookie for `token`, with the session's lifetime.
    func sessionCookie(_ token: String) -> SetCookie {
        cookies.setting(.session, to: token, maxAge: Int(SessionKeeper.idleLifetime))
    }

    /// Whether the request carries neither a session nor a pre-session cookie: its visitor is
    /// nobody, and its page is the one every such request for the same target gets.
    func isAnonymous(_ context: RequestContext) -> Bool {
        !cookies.has(.session, in: context.cookies) && !cookies.has(.preSession, in: context.cookies)
    }
}

package import Basics
package import HTTPServer
package import Store

/// What a coordinator decides a request leads to: the server-side form of a coordinator's
/// navigation primitives.
package enum Navigation: Sendable {
    /// Render this page (*present*).
    case present(Page)
    /// 303 to a route (*push*).
    case redirect(Location)
    /// The child's flow is over; its parent decides where to go (`onFlowFinished`).
    case finished(FlowOutcome)
    /// A response that is not a page (health check, static file, photo).
    case respond(HTTPResponse)

    /// A 303 to `route`.
    package static func push(_ route: some Route) -> Navigation {
        .redirect(Location(route))
    }
}

/// Where a redirect goes: only ever built from a route, so no path is spelled by hand.
package struct Location: Sendable, Equatable {
    package let path: String

    package init(_ route: some Route) {
        path = route.path
    }
}

/// How a flow ended, reported by a child coordinator to its parent.
package enum FlowOutcome: Sendable, Equatable {
    /// A quote was saved after editing.
    case quoteSaved(QuoteID)
    /// A quote became the signed-in person's favourite.
    case favouriteChosen(QuoteID)
    /// A quote was deleted by the person who added it.
    case quoteDeleted(QuoteID)
    /// Sign-up or sign-in succeeded with this new session; `returnTo` is where they were going.
    case signedIn(IssuedSession, returnTo: ReturnPath?)
    case signedOut
    /// The signed-in person reported a quote (or had already): its page thanks them.
    case quoteReported(QuoteID)
    /// The signed-in person changed their profile.
    case profileUpdated(Username)
    /// The signed-in person changed their password: every other session ended, and this new one
    /// replaces the one they asked in.
    case passwordChanged(IssuedSession, Username)
}

/// A child of the root coordinator: it owns one route enum and starts a flow for each of its
/// cases. The root has already checked the route's CSRF token and access when `start` runs, and
/// `context` holds the request, its form and its visitor. A flow that needs nothing to wait for
/// answers `.now`; one that must wait (storage, a password hash) answers `.later`.
package protocol FlowCoordinator: Sendable {
    associatedtype FlowRoute: Route
    func start(_ route: FlowRoute, _ context: RequestContext) -> Step<Navigation>
}

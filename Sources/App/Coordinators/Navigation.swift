package import HTTPServer
package import Store

/// What a coordinator decides a request leads to: the server-side form of a coordinator's
/// navigation primitives.
package enum Navigation: Sendable {
    /// Render this page (*present*).
    case present(Page)
    /// 303 to another route (*push*), built from a route so no path is spelled by hand.
    case redirect(path: String)
    /// The child's flow is over; its parent decides where to go (`onFlowFinished`).
    case finished(FlowOutcome)
    /// A response that is not a page (health check, static file).
    case respond(HTTPResponse)

    /// A 303 to `route`.
    package static func push(_ route: some Route) -> Navigation {
        .redirect(path: route.path)
    }
}

/// How a flow ended, reported by a child coordinator to its parent.
package enum FlowOutcome: Sendable, Equatable {
    /// A quote was saved after editing.
    case quoteSaved(QuoteID)
}

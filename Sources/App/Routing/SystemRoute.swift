package import HTTPServer

/// Pages that belong to no feature.
package enum SystemRoute: Route {
    /// `GET /healthz`: `200 ok` as text/plain.
    case health
    /// `GET /metrics`: counters in the Prometheus text format, with `--metrics` (else 404).
    case metrics
    /// `GET /dev/events`: with `--dev`, an event stream telling pages to reload when a template
    /// or public file changes (else 404).
    case developmentEvents

    package static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<SystemRoute> {
        switch PathSegments.shape(of: segments) {
        case (1, "healthz", _): [.health]
        case (1, "metrics", _): [.metrics]
        case (2, "dev", "events"): [.developmentEvents]
        default: []
        }
    }

    package var method: HTTPMethod { .get }

    package var access: RouteAccess { .anyone }

    package var segments: [String] {
        switch self {
        case .health: ["healthz"]
        case .metrics: ["metrics"]
        case .developmentEvents: ["dev", "events"]
        }
    }

    /// The request counters' name for this case (``RouteLabel``).
    package var metricsLabel: RouteLabel {
        switch self {
        case .health: "system_health"
        case .metrics: "system_metrics"
        case .developmentEvents: "system_development_events"
        }
    }
}

/// Files of `Public/` that pages link to; served at the same path by the static-file fallback.
package enum PublicAsset: String, CaseIterable, Sendable {
    case stylesheet = "site.css"
    /// Keeps an open quote page up to date from its event stream.
    case liveQuote = "live.js"
    /// `--dev` only: reloads every page when a template or public file changes.
    case developmentReload = "dev-reload.js"

    /// The URL path of the file.
    package var path: String { "/" + rawValue }
}

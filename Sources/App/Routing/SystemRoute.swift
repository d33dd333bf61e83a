package import HTTPServer

/// Pages that belong to no feature.
package enum SystemRoute: Route {
    /// `GET /healthz`: `200 ok` as text/plain.
    case health
    /// `GET /metrics`: counters in the Prometheus text format, with `--metrics` (else 404).
    case metrics

    package static func routes(at segments: [String], query: URLEncodedForm) -> [SystemRoute] {
        switch segments {
        case ["healthz"]: [.health]
        case ["metrics"]: [.metrics]
        default: []
        }
    }

    package var method: HTTPMethod { .get }

    package var access: RouteAccess { .anyone }

    package var segments: [String] {
        switch self {
        case .health: ["healthz"]
        case .metrics: ["metrics"]
        }
    }
}

/// Files of `Public/` that pages link to; served at the same path by the static-file fallback.
package enum PublicAsset: String, CaseIterable, Sendable {
    case stylesheet = "site.css"
    /// Keeps an open quote page up to date from its event stream.
    case liveQuote = "live.js"

    /// The URL path of the file.
    package var path: String { "/" + rawValue }
}

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

    package var isMemberWrite: Bool { false }

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

    /// The address pages link: the path, with `?v=` and the content's version when there is one
    /// (``HTTPServer/StaticFiles/version(of:)``), which lets the browser keep the file a year.
    package func address(version: String?) -> String {
        guard let version else { return path }
        return path + "?" + URLEncodedForm.encode(pairs: [(name: "v", value: version)])
    }
}

/// The address of each ``PublicAsset`` that pages link, fixed when the app starts: each file's
/// path with its content's version, so a browser keeps the stylesheet and the scripts until a
/// deployment changes them (``HTTPServer/StaticFiles``). Unversioned (plain paths) in `--dev`,
/// where the files change under a running server, and where no file is found.
package struct AssetAddresses: Sendable {
    private let addresses: [PublicAsset: String]

    /// `version` gives each asset's version, or nil for none.
    package init(version: (PublicAsset) -> String?) {
        addresses = Dictionary(uniqueKeysWithValues: PublicAsset.allCases.map { ($0, $0.address(version: version($0))) })
    }

    /// Every asset at its plain path.
    package static let unversioned = AssetAddresses { _ in nil }

    package subscript(asset: PublicAsset) -> String { addresses[asset] ?? asset.path }
}

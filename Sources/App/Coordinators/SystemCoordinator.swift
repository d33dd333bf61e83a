package import Basics
package import HTTPServer

/// Health check, metrics, the `--dev` reload stream, and the files of `Public/`, the fallback
/// for paths no feature claims.
package struct SystemCoordinator: FlowCoordinator {
    private let staticFiles: StaticFiles
    /// The counters `/metrics` shows; nil without `--metrics`, and `/metrics` is then a 404.
    private let metrics: MetricsRegistry?
    /// Set only with `--dev`.
    private let developmentReload: DevelopmentReload?

    package init(staticFiles: StaticFiles, metrics: MetricsRegistry? = nil, developmentReload: DevelopmentReload? = nil) {
        self.staticFiles = staticFiles
        self.metrics = metrics
        self.developmentReload = developmentReload
    }

    package func start(_ route: SystemRoute, _ context: RequestContext) -> Step<Navigation> {
        .now(navigation(for: route, context.request))
    }

    private func navigation(for route: SystemRoute, _ request: HTTPRequest) -> Navigation {
        switch route {
        case .health:
            var response = HTTPResponse.text("ok")
            response.headers.add(name: "Cache-Control", value: "no-store")
            return .respond(response)
        case .metrics:
            guard let metrics else { return .present(ErrorView.page(for: .notFound)) }
            let response = HTTPResponse(
                status: .ok, headers: ["Content-Type": PrometheusText.contentType, "Cache-Control": "no-store"],
                body: Array(metrics.exposition().utf8))
            return .respond(response)
        case .developmentEvents:
            guard let reload = developmentReload else { return .present(ErrorView.page(for: .notFound)) }
            let lastSeen = request.headers["Last-Event-ID"]
            return .respond(DevelopmentReloadView.response { reload.messages(lastSeen: lastSeen) })
        }
    }

    /// The file of `Public/` at the request's path, if there is one: the file for GET and HEAD,
    /// a 405 page for other methods.
    package func staticFile(for request: HTTPRequest) -> Navigation? {
        if request.method == .get || request.method == .head {
            return staticFiles.response(for: request).map(Navigation.respond)
        }
        var probe = request
        probe.method = .get
        probe.body = []
        guard staticFiles.response(for: probe) != nil else { return nil }
        return .present(ErrorView.page(for: .methodNotAllowed([.get, .head])))
    }
}

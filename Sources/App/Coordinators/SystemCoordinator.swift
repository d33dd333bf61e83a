package import HTTPServer

/// Health check, the `--dev` reload stream, and the files of `Public/`, the fallback for paths
/// no feature claims.
package struct SystemCoordinator: FlowCoordinator {
    private let staticFiles: StaticFiles
    /// Set only with `--dev`.
    private let developmentReload: DevelopmentReload?

    package init(staticFiles: StaticFiles, developmentReload: DevelopmentReload? = nil) {
        self.staticFiles = staticFiles
        self.developmentReload = developmentReload
    }

    package func start(_ route: SystemRoute, request: HTTPRequest, form: SubmittedForm, visitor: Visitor) -> Navigation {
        switch route {
        case .health:
            var response = HTTPResponse.text("ok")
            response.headers.add(name: "Cache-Control", value: "no-store")
            return .respond(response)
        case .metrics:
            // Being built (issue 9): without --metrics this is the answer the spec asks for.
            return .present(ErrorView.page(for: .notFound))
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

package import HTTPServer
import Logging

/// The root of the coordinator tree and the server's responder.
///
/// It owns one child per area, offers each request to the children's route enums in turn,
/// answers 404/405 when none claims it, decides where finished flows lead, and is the one
/// boundary where errors become responses (a 500 page, details only in development).
package struct AppCoordinator: HTTPResponder {
    private let quotes: QuotesCoordinator
    private let system: SystemCoordinator
    private let renderer: PageRenderer
    private let logger: Logger

    /// Builds the tree: the root creates its children and injects what each needs.
    package init(dependencies: Dependencies) {
        quotes = QuotesCoordinator(controller: QuoteController(store: dependencies.store, now: dependencies.now))
        system = SystemCoordinator(staticFiles: dependencies.staticFiles)
        renderer = PageRenderer(
            source: dependencies.templates,
            showsErrorDetails: dependencies.isDevelopment,
            logger: dependencies.logger.labeled("view")
        )
        logger = dependencies.logger.labeled("app")
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        let navigation: Navigation
        do {
            navigation = try await route(request)
        } catch {
            logger.error("\(request.method) \(request.path) failed: \(error)")
            navigation = .present(ErrorView.page(for: .serverFault(details: "\(error)")))
        }
        return resolve(navigation)
    }

    /// Finds the child whose routes claim the request and starts its flow.
    func route(_ request: HTTPRequest) async throws -> Navigation {
        guard let segments = PathSegments.decode(request.path) else {
            return .present(ErrorView.page(for: .notFound))
        }
        switch QuotesRoute.match(method: request.method, segments: segments) {
        case .found(let route): return try await quotes.start(route, request: request)
        case .methodNotAllowed(let allowed): return .present(ErrorView.page(for: .methodNotAllowed(allowed)))
        case .notFound: break
        }
        switch SystemRoute.match(method: request.method, segments: segments) {
        case .found(let route): return system.start(route, request: request)
        case .methodNotAllowed(let allowed): return .present(ErrorView.page(for: .methodNotAllowed(allowed)))
        case .notFound: break
        }
        return system.staticFile(for: request) ?? .present(ErrorView.page(for: .notFound))
    }

    /// The parent's decision when a child's flow ends (`onFlowFinished`).
    func onFlowFinished(_ outcome: FlowOutcome) -> Navigation {
        switch outcome {
        case .quoteSaved(let id): .push(QuotesRoute.show(id))
        }
    }

    /// Performs a navigation: renders, redirects, or passes a response through.
    private func resolve(_ navigation: Navigation) -> HTTPResponse {
        switch navigation {
        case .present(let page): renderer.response(for: page)
        case .redirect(let path): .seeOther(path)
        case .finished(let outcome): resolve(onFlowFinished(outcome))
        case .respond(let response): response
        }
    }
}

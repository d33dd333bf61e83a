import Foundation
import App
import HTTPServer
import Store
import TestSupport
import Testing

/// Every case of every route enum generates a path that parses back to itself, and paths that
/// belong to no route are not claimed.
@Suite struct RouteTests {
    static let quoteRoutes = QuotesRouteKind.allCases.map(\.example)
    static let systemRoutes = SystemRouteKind.allCases.map(\.example)

    @Test(arguments: quoteRoutes)
    func quotesRouteRoundTrips(route: QuotesRoute) throws {
        let segments = try #require(PathSegments.decode(route.path))
        #expect(QuotesRoute.match(method: route.method, segments: segments) == .found(route))
        #expect(SystemRoute.match(method: route.method, segments: segments) == .notFound)
    }

    @Test(arguments: systemRoutes)
    func systemRouteRoundTrips(route: SystemRoute) throws {
        let segments = try #require(PathSegments.decode(route.path))
        #expect(SystemRoute.match(method: route.method, segments: segments) == .found(route))
        #expect(QuotesRoute.match(method: route.method, segments: segments) == .notFound)
    }

    @Test func everyRouteCaseHasAnExample() {
        // `kind` switches over every route case without a default, so a new case does not
        // compile until it has a kind, and every kind must produce an example of itself.
        #expect(QuotesRouteKind.allCases.map(\.example.kind) == QuotesRouteKind.allCases)
        #expect(SystemRouteKind.allCases.map(\.example.kind) == SystemRouteKind.allCases)
    }

    @Test(arguments: PublicAsset.allCases)
    func everyLinkedPublicFileExists(asset: PublicAsset) {
        #expect(FileManager.default.fileExists(atPath: RepositoryPaths.publicFiles.appendingPathComponent(asset.rawValue).path))
        #expect(QuotesRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
        #expect(SystemRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
    }

    @Test func generatesTheSpecPaths() {
        #expect(QuotesRoute.home.path == "/")
        #expect(QuotesRoute.show(QuoteID(3)).path == "/quotes/3")
        #expect(QuotesRoute.edit(QuoteID(3)).path == "/quotes/3/edit")
        #expect(QuotesRoute.update(QuoteID(3)).path == "/quotes/3")
        #expect(SystemRoute.health.path == "/healthz")
    }

    @Test func headMatchesGetRoutes() {
        #expect(QuotesRoute.match(method: .head, segments: ["quotes", "5"]) == .found(.show(QuoteID(5))))
    }

    @Test func wrongMethodListsTheAllowedOnes() {
        #expect(QuotesRoute.match(method: .delete, segments: ["quotes", "5"]) == .methodNotAllowed(allowed: [.get, .post, .head]))
        #expect(QuotesRoute.match(method: .post, segments: ["quotes", "5", "edit"]) == .methodNotAllowed(allowed: [.get, .head]))
    }

    @Test(arguments: [
        "/quotes/0", "/quotes/01", "/quotes/-1", "/quotes/abc", "/quotes/1/", "/quotes", "/quotes/1/edit/x", "/quotes/99999999999999999999",
    ])
    func nonCanonicalOrUnknownPathsAreNotFound(path: String) throws {
        let segments = try #require(PathSegments.decode(path))
        #expect(QuotesRoute.match(method: .get, segments: segments) == .notFound)
    }

    @Test func decodesPercentEscapesPerSegment() {
        #expect(PathSegments.decode("/a%20b/c%2Fd/e+f") == ["a b", "c/d", "e+f"])
        #expect(PathSegments.decode("/bad%zz") == nil)
        #expect(PathSegments.decode("/bad%ff") == nil)
        #expect(PathSegments.decode("relative") == nil)
    }

    @Test func encodesSegmentsSoTheyDecodeBack() {
        let segment = "a b/ç?#%"
        #expect(PathSegments.decode("/" + PathSegments.encode(segment)) == [segment])
    }
}

/// The cases of ``QuotesRoute`` without their values, each with an example value.
enum QuotesRouteKind: CaseIterable {
    case home, show, edit, update

    var example: QuotesRoute {
        switch self {
        case .home: .home
        case .show: .show(QuoteID(1))
        case .edit: .edit(QuoteID(42))
        case .update: .update(QuoteID(7))
        }
    }
}

extension QuotesRoute {
    var kind: QuotesRouteKind {
        switch self {
        case .home: .home
        case .show: .show
        case .edit: .edit
        case .update: .update
        }
    }
}

/// The cases of ``SystemRoute`` without their values, each with an example value.
enum SystemRouteKind: CaseIterable {
    case health

    var example: SystemRoute {
        switch self {
        case .health: .health
        }
    }
}

extension SystemRoute {
    var kind: SystemRouteKind {
        switch self {
        case .health: .health
        }
    }
}

import App
import HTTPServer
import Store
import Testing

/// Every case of every route enum generates a path that parses back to itself, and paths that
/// belong to no route are not claimed.
@Suite struct RouteTests {
    static let quoteRoutes: [QuotesRoute] = [.home, .show(QuoteID(1)), .edit(QuoteID(42)), .update(QuoteID(7))]
    static let systemRoutes: [SystemRoute] = [.health]

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

    @Test func everyQuotesRouteCaseIsCovered() {
        // A new case without a sample here fails to compile: the switch has no default.
        for route in Self.quoteRoutes {
            switch route {
            case .home, .show, .edit, .update: continue
            }
        }
        #expect(Set(Self.quoteRoutes.map { String(describing: $0).prefix(while: { $0 != "(" }) }).count == 4)
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

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
    static let accountRoutes = AccountsRouteKind.allCases.map(\.example)
    static let profileRoutes = ProfilesRouteKind.allCases.map(\.example)
    static let moderationRoutes = ModerationRouteKind.allCases.map(\.example)

    /// Which enums claim `route`'s path and query: exactly its own must, with the same case.
    func claims(_ route: some Route) throws -> [String] {
        let (path, queryText) = HTTPRequest.split(target: route.path)
        let segments = try #require(PathSegments.decode(path))
        let query = try URLEncodedForm(Array((queryText ?? "").utf8))
        var claimed: [String] = []
        func check<R: Route>(_ type: R.Type) {
            switch R.match(method: route.method, segments: segments, query: query) {
            case .found(let found):
                claimed.append("\(R.self)")
                #expect(AnyHashable(found) == AnyHashable(route), "\(route.path) parsed to \(found)")
            case .methodNotAllowed: claimed.append("\(R.self) (405)")
            case .notFound: break
            }
        }
        check(QuotesRoute.self)
        check(AccountsRoute.self)
        check(ProfilesRoute.self)
        check(SystemRoute.self)
        check(ModerationRoute.self)
        return claimed
    }

    @Test(arguments: quoteRoutes)
    func quotesRouteRoundTrips(route: QuotesRoute) throws {
        #expect(try claims(route) == ["QuotesRoute"])
    }

    @Test(arguments: systemRoutes)
    func systemRouteRoundTrips(route: SystemRoute) throws {
        #expect(try claims(route) == ["SystemRoute"])
    }

    @Test(arguments: accountRoutes)
    func accountsRouteRoundTrips(route: AccountsRoute) throws {
        #expect(try claims(route) == ["AccountsRoute"])
    }

    @Test(arguments: profileRoutes)
    func profilesRouteRoundTrips(route: ProfilesRoute) throws {
        #expect(try claims(route) == ["ProfilesRoute"])
    }

    @Test(arguments: moderationRoutes)
    func moderationRouteRoundTrips(route: ModerationRoute) throws {
        #expect(try claims(route) == ["ModerationRoute"])
        #expect(route.access == .moderators)
    }

    @Test func protectedRoutesNeedSignInAndSignUpNeedsSignedOut() {
        #expect(QuotesRoute.edit(QuoteID(1)).access == .signedIn)
        #expect(QuotesRoute.update(QuoteID(1)).access == .signedIn)
        #expect(QuotesRoute.favourite(QuoteID(1)).access == .signedIn)
        #expect(QuotesRoute.show(QuoteID(1)).access == .anyone)
        #expect(AccountsRoute.signUpForm.access == .signedOut)
        #expect(AccountsRoute.signInForm(returnTo: nil).access == .anyone)
        #expect(AccountsRoute.signOut.access == .signedIn)
        #expect(ProfilesRoute.show(Username("ada")!).access == .anyone)
        for route in [ProfilesRoute.mine, .edit, .updateName, .updatePhoto, .removePhoto] { #expect(route.access == .signedIn) }
    }

    @Test func usernamesInPathsAreCanonical() {
        #expect(ProfilesRoute.match(method: .get, segments: ["users", "ada"]) == .found(.show(Username("ada")!)))
        #expect(ProfilesRoute.match(method: .get, segments: ["users", "Ada"]) == .notFound)
        #expect(ProfilesRoute.match(method: .get, segments: ["users", "a"]) == .notFound)
        #expect(ProfilesRoute.match(method: .get, segments: ["users", "a.b"]) == .notFound)
    }

    @Test func listPageComesFromTheQuery() throws {
        #expect(QuotesRoute.list(page: 1).path == "/quotes")
        #expect(QuotesRoute.list(page: 3).path == "/quotes?page=3")
        #expect(QuotesRoute.match(method: .get, segments: ["quotes"], query: try URLEncodedForm(Array("page=x".utf8))) == .found(.list(page: 0)))
        #expect(QuotesRoute.match(method: .get, segments: ["quotes"], query: try URLEncodedForm(Array("page=-2".utf8))) == .found(.list(page: 0)))
    }

    @Test func historyPageComesFromTheQueryAndRoundTrips() throws {
        #expect(QuotesRoute.history(QuoteID(6)).path == "/quotes/6/history")
        #expect(QuotesRoute.history(QuoteID(6), page: 3).path == "/quotes/6/history?page=3")
        #expect(try claims(QuotesRoute.history(QuoteID(6), page: 3)) == ["QuotesRoute"])
        let segments = ["quotes", "6", "history"]
        for bad in ["page=x", "page=0", "page=03", "page=-1"] {
            #expect(
                QuotesRoute.match(method: .get, segments: segments, query: try URLEncodedForm(Array(bad.utf8)))
                    == .found(.history(QuoteID(6), page: 0)), "\(bad)")
        }
    }

    @Test func signInCarriesWhereToReturnInItsQuery() {
        #expect(AccountsRoute.signInForm(returnTo: ReturnPath("/quotes/1/edit")).path == "/login?return_to=/quotes/1/edit")
        #expect(AccountsRoute.signInForm(returnTo: nil).path == "/login")
    }

    @Test func everyRouteCaseHasAnExample() {
        // `kind` switches over every route case without a default, so a new case does not
        // compile until it has a kind, and every kind must produce an example of itself.
        #expect(QuotesRouteKind.allCases.map(\.example.kind) == QuotesRouteKind.allCases)
        #expect(SystemRouteKind.allCases.map(\.example.kind) == SystemRouteKind.allCases)
        #expect(AccountsRouteKind.allCases.map(\.example.kind) == AccountsRouteKind.allCases)
        #expect(ProfilesRouteKind.allCases.map(\.example.kind) == ProfilesRouteKind.allCases)
        #expect(ModerationRouteKind.allCases.map(\.example.kind) == ModerationRouteKind.allCases)
    }

    @Test(arguments: PublicAsset.allCases)
    func everyLinkedPublicFileExists(asset: PublicAsset) {
        #expect(FileManager.default.fileExists(atPath: RepositoryPaths.publicFiles.appendingPathComponent(asset.rawValue).path))
        #expect(QuotesRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
        #expect(SystemRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
        #expect(AccountsRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
        #expect(ProfilesRoute.match(method: .get, segments: [asset.rawValue]) == .notFound)
    }

    @Test func generatesTheSpecPaths() {
        #expect(QuotesRoute.home.path == "/")
        #expect(QuotesRoute.show(QuoteID(3)).path == "/quotes/3")
        #expect(QuotesRoute.edit(QuoteID(3)).path == "/quotes/3/edit")
        #expect(QuotesRoute.update(QuoteID(3)).path == "/quotes/3")
        #expect(SystemRoute.health.path == "/healthz")
        #expect(QuotesRoute.favourite(QuoteID(3)).path == "/quotes/3/favorite")
        #expect(AccountsRoute.signUp.path == "/signup")
        #expect(AccountsRoute.signIn.path == "/login")
        #expect(AccountsRoute.signOut.path == "/logout")
        #expect(ProfilesRoute.show(Username("ada")!).path == "/users/ada")
        #expect(ProfilesRoute.photo(Username("ada")!).path == "/users/ada/photo")
        #expect(ProfilesRoute.photo(Username("ada")!, version: "0a1b").path == "/users/ada/photo?v=0a1b")
        #expect(ProfilesRoute.smallPhoto(Username("ada")!, version: "0a1b").path == "/users/ada/photo/small?v=0a1b")
        #expect(ProfilesRoute.mine.path == "/profile")
        #expect(ProfilesRoute.edit.path == "/profile/edit")
        #expect(ProfilesRoute.updateName.path == "/profile/name")
        #expect(ProfilesRoute.updatePhoto.path == "/profile/photo")
        #expect(ProfilesRoute.removePhoto.path == "/profile/photo/delete")
    }

    @Test func headMatchesGetRoutes() {
        #expect(QuotesRoute.match(method: .head, segments: ["quotes", "5"]) == .found(.show(QuoteID(5))))
    }

    @Test func wrongMethodListsTheAllowedOnes() {
        #expect(QuotesRoute.match(method: .delete, segments: ["quotes", "5"]) == .methodNotAllowed(allowed: [.get, .post, .head]))
        #expect(QuotesRoute.match(method: .post, segments: ["quotes", "5", "edit"]) == .methodNotAllowed(allowed: [.get, .head]))
    }

    @Test(arguments: [
        "/quotes/0", "/quotes/01", "/quotes/-1", "/quotes/abc", "/quotes/1/", "/quotes/1/edit/x", "/quotes/1/favourite", "/quotes/99999999999999999999",
    ])
    func nonCanonicalOrUnknownPathsAreNotFound(path: String) throws {
        let segments = try #require(PathSegments.decode(path))
        #expect(QuotesRoute.match(method: .get, segments: segments) == .notFound)
    }

    /// Near misses of every area's fixed paths: a segment more, a segment fewer, a first or
    /// last segment of another path. Each area matches by count and segments
    /// (`PathSegments.shape(of:)`), so no path may match by its first and last segment alone.
    @Test(arguments: [
        "/signup/x", "/login/login", "/password", "/password/forgot/x", "/password/verify", "/email/reset", "/email",
        "/healthz/x", "/metrics/metrics", "/dev", "/dev/x/events", "/events", "/quotes/new/x", "/new",
        "/profile/photo/delete/x", "/profile/delete/photo", "/profile/sessions/x", "/profile/x/end-others",
        "/profile/sessions/end-others/x", "/profile/edit/x", "/profile/profile", "/moderation/log/x", "/moderation/x",
    ])
    func nearMissesOfFixedPathsAreNotFound(path: String) throws {
        let segments = try #require(PathSegments.decode(path))
        #expect(AppRoute.match(method: .get, segments: segments, query: URLEncodedForm()) == .notFound)
        #expect(AppRoute.match(method: .post, segments: segments, query: URLEncodedForm()) == .notFound)
    }

    @Test func aPathsShapeIsItsCountAndItsFirstAndLastSegments() {
        #expect(PathSegments.shape(of: []) == (0, "", ""))
        #expect(PathSegments.shape(of: ["login"]) == (1, "login", "login"))
        #expect(PathSegments.shape(of: ["profile", "sessions", "end-others"]) == (3, "profile", "end-others"))
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

    @Test func escapesAllButUnreservedBytes() {
        #expect(PathSegments.encode("quotes-1.2_~Az") == "quotes-1.2_~Az")
        #expect(PathSegments.encode("a b") == "a%20b")
        #expect(PathSegments.encode("é/") == "%C3%A9%2F")
        #expect(PathSegments.encode("") == "")
    }
}

import App
import Store
import Testing

/// The request table: one counter per route and status, `other` for codes without a column,
/// and every route enum case with a label of its own.
@Suite struct HTTPRequestCountersTests {
    @Test func countsEachRouteAndStatusApart() {
        let counters = HTTPRequestCounters()
        counters.count(.quotesHome, status: 200)
        counters.count(.quotesHome, status: 200)
        counters.count(.quotesHome, status: 304)
        counters.count(.unmatched, status: 404)
        #expect(counters.value(.quotesHome, status: 200) == 2)
        #expect(counters.value(.quotesHome, status: 304) == 1)
        #expect(counters.value(.unmatched, status: 404) == 1)
        #expect(counters.value(.quotesShow, status: 200) == 0)
        #expect(counters.value(.unmatched, status: 200) == 0)
    }

    @Test func codesWithoutAColumnShareOther() {
        let counters = HTTPRequestCounters()
        for code in [299, 599, 600, 1_000, -1, 0, 418] { counters.count(.rejected, status: code) }
        counters.count(.rejected, status: 400)
        #expect(counters.value(.rejected, status: 299) == 7)
        #expect(counters.value(.rejected, status: 400) == 1)
        #expect(counters.nonZero().map { "\($0.route.value) \($0.status) \($0.count)" } == ["rejected 400 1", "rejected other 7"])
    }

    @Test func listsNonZeroCountersByRouteThenStatus() {
        let counters = HTTPRequestCounters()
        counters.count(.rejected, status: 431)
        counters.count(.accountsSignIn, status: 401)
        counters.count(.quotesShow, status: 404)
        counters.count(.quotesShow, status: 200)
        counters.count(.accountsSignIn, status: 303)
        #expect(
            counters.nonZero().map { "\($0.route.value) \($0.status) \($0.count)" } == [
                "quotes_show 200 1", "quotes_show 404 1", "accounts_sign_in 303 1", "accounts_sign_in 401 1", "rejected 431 1",
            ])
    }

    @Test func everyStatusTheServerNamesHasAColumn() {
        let counters = HTTPRequestCounters()
        let named = [
            200, 201, 204, 301, 302, 303, 304, 400, 401, 403, 404, 405, 408, 409, 411, 413, 414, 415, 417, 422, 429, 431,
            500, 501, 503, 505,
        ]
        for code in named { counters.count(.systemHealth, status: code) }
        #expect(counters.nonZero().map(\.status) == named.map(String.init))
    }

    @Test func everyRouteCaseHasALabelOfItsOwn() {
        let routes =
            QuotesRouteKind.allCases.map(\.example.metricsLabel) + AccountsRouteKind.allCases.map(\.example.metricsLabel)
            + ProfilesRouteKind.allCases.map(\.example.metricsLabel) + SystemRouteKind.allCases.map(\.example.metricsLabel)
        #expect(Set(routes).count == routes.count)
        #expect(Set(routes + [.staticFile, .unmatched, .rejected]) == Set(RouteLabel.allCases))
        #expect(QuotesRoute.show(QuoteID(7)).metricsLabel.value == "quotes_show")
        #expect(AccountsRoute.signIn.metricsLabel.value == "accounts_sign_in")
        #expect(SystemRoute.health.metricsLabel.value == "system_health")
    }

    @Test(arguments: RouteLabel.allCases)
    func labelValuesAreSnakeCaseNames(label: RouteLabel) {
        #expect(!label.value.isEmpty)
        #expect(label.value.allSatisfy { ($0 >= "a" && $0 <= "z") || $0 == "_" })
        #expect(RouteLabel.allCases.filter { $0.value == label.value } == [label])
    }
}

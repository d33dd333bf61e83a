import App
import Store
import Testing

/// The request table: one counter per route and status, `other` for codes without a column,
/// and every route enum case with a label of its own.
@Suite struct HTTPRequestCountersTests {
    @Test func countsEachRouteAndStatusApart() {
        let counters = HTTPRequestCounters()
        counters.count("quotes_home", status: 200)
        counters.count("quotes_home", status: 200)
        counters.count("quotes_home", status: 304)
        counters.count(.unmatched, status: 404)
        #expect(counters.value("quotes_home", status: 200) == 2)
        #expect(counters.value("quotes_home", status: 304) == 1)
        #expect(counters.value(.unmatched, status: 404) == 1)
        #expect(counters.value("quotes_show", status: 200) == 0)
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
        counters.count("accounts_sign_in", status: 401)
        counters.count("quotes_show", status: 404)
        counters.count("quotes_show", status: 200)
        counters.count("accounts_sign_in", status: 303)
        #expect(
            counters.nonZero().map { "\($0.route.value) \($0.status) \($0.count)" } == [
                "accounts_sign_in 303 1", "accounts_sign_in 401 1", "quotes_show 200 1", "quotes_show 404 1", "rejected 431 1",
            ])
    }

    @Test func everyStatusTheServerNamesHasAColumn() {
        let counters = HTTPRequestCounters()
        let named = [
            200, 201, 204, 301, 302, 303, 304, 400, 401, 403, 404, 405, 408, 409, 411, 413, 414, 415, 417, 422, 429, 431,
            500, 501, 503, 505,
        ]
        for code in named { counters.count("system_health", status: code) }
        #expect(counters.nonZero().map(\.status) == named.map(String.init))
    }

    /// Every label: one per case of every route enum, and the three for requests no route claimed.
    static let allLabels: [RouteLabel] =
        QuotesRouteKind.allCases.map(\.example.metricsLabel) + AccountsRouteKind.allCases.map(\.example.metricsLabel)
        + ProfilesRouteKind.allCases.map(\.example.metricsLabel) + SystemRouteKind.allCases.map(\.example.metricsLabel)
        + [.staticFile, .unmatched, .rejected]

    @Test func everyRouteCaseHasALabelOfItsOwn() {
        #expect(Set(Self.allLabels).count == Self.allLabels.count)
        #expect(QuotesRoute.show(QuoteID(7)).metricsLabel.value == "quotes_show")
        #expect(AccountsRoute.signIn.metricsLabel.value == "accounts_sign_in")
        #expect(SystemRoute.health.metricsLabel.value == "system_health")
    }

    @Test(arguments: allLabels)
    func labelValuesAreSnakeCaseNames(label: RouteLabel) {
        #expect(!label.value.isEmpty)
        #expect(label.value.allSatisfy { ($0 >= "a" && $0 <= "z") || $0 == "_" })
        #expect(Self.allLabels.filter { $0.value == label.value } == [label])
    }

    @Test func everyLabelHasARowOfItsOwn() {
        let counters = HTTPRequestCounters()
        for (index, label) in Self.allLabels.enumerated() { counters.count(label, status: 200 + index % 2) }
        for (index, label) in Self.allLabels.enumerated() {
            #expect(counters.value(label, status: 200 + index % 2) == 1, "\(label)")
        }
    }
}

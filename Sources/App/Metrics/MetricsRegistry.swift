/// Quotebook's counters, created once by the composition root when `--metrics` is given and
/// shared by the three parts that use them: the root coordinator counts requests, the store's
/// ``MetricsMiddleware`` counts actions, and `GET /metrics` prints both.
///
/// Without `--metrics` there is no registry at all: nothing is counted and `/metrics` is a 404.
/// Ownership: see ``HTTPRequestCounters`` (atomics) and ``ActionCounters`` (a mutex).
package final class MetricsRegistry: Sendable {
    package let requests = HTTPRequestCounters()
    package let actions = ActionCounters()
    package let mail = MailCounters()

    package init() {}

    /// The middleware that feeds ``actions``; give it to the store.
    package var storeMiddleware: MetricsMiddleware {
        MetricsMiddleware(counters: actions)
    }

    /// Every counter in the Prometheus text format (``PrometheusText``): requests, then
    /// actions, each family's samples in a fixed order, counters at zero left out (but mail's, a fixed set).
    package func exposition() -> String {
        var text = PrometheusText()
        text.appendCounter(
            "quotebook_http_requests_total",
            help: "HTTP requests answered, by route (the route enum's case, or static_file, unmatched, rejected) and status code.",
            samples: requests.nonZero().map { ([("route", $0.route.value), ("status", $0.status)], $0.count) })
        text.appendCounter(
            "quotebook_actions_total",
            help: "Store actions, by kind and outcome (applied, or refused with the reducer's reason).",
            samples: actions.all().map { counter in
                switch counter.key.outcome {
                case .applied:
                    ([("kind", counter.key.kind), ("outcome", "applied")], counter.count)
                case .refused(let reason):
                    ([("kind", counter.key.kind), ("outcome", "refused"), ("reason", reason)], counter.count)
                }
            })
        text.appendCounter(
            "quotebook_mail_total",
            help: "Queued mail by outcome: sent (accepted by the relay), retried (failed for now, queued again), failed (given up).",
            // Every outcome, 0 included: the set is fixed, and a rate needs the series from its start.
            samples: MailCounters.Outcome.allCases.map { ([("outcome", $0.rawValue)], mail.value($0)) })
        return text.text
    }
}

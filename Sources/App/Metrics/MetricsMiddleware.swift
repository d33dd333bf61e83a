package import Store

/// The store middleware that counts every action the store applies or refuses (PATTERNS.md §3:
/// metrics are middleware). It runs on the store's executor, so it only bumps a counter.
package struct MetricsMiddleware: StoreMiddleware {
    private let counters: ActionCounters

    package init(counters: ActionCounters) {
        self.counters = counters
    }

    package func applied(_ action: AppAction, event: AppEvent, sequence: Int64) {
        counters.count(action.kind, .applied)
    }

    package func refused(_ action: AppAction, because rejection: ActionRejection) {
        counters.count(action.kind, .refused(reason: rejection.kind))
    }
}

package import Foundation
package import Store

/// The logic of reports and moderation (SPEC.md "Moderation"): reporting a quote, the queue of
/// reports, the log, and the moderators' actions, each one action through the store. No HTTP, no
/// HTML; who may moderate is the reducer's rule (and the access gate's, before it).
package struct ModerationController: Sendable {
    /// Reports one person may make an hour.
    package static let reportsPerPersonHour = 10
    package static let reportNamespace = "report"

    let store: any StateStore
    let reportLimit: AttemptLimit
    let now: @Sendable () -> Date

    package init(store: any StateStore, attempts: any SignInFailureStorage, now: @escaping @Sendable () -> Date) {
        self.store = store
        reportLimit = AttemptLimit(namespace: Self.reportNamespace, limit: Self.reportsPerPersonHour, window: 3_600, storage: attempts)
        self.now = now
    }

    /// Reports `quote` for `user`, counted against their hourly allowance once the reason can be
    /// kept (a refused one costs nothing).
    package func report(_ quote: QuoteID, reason: String, by user: UserID) async throws -> ReportState {
        if let problem = ModerationState.problem(withReason: reason) { return .invalidReason(problem) }
        guard store.state.quotes[quote] != nil else { return .notFound }
        if store.state.moderation.openReport(of: quote, by: user) != nil { return .reported }
        let attempt: AttemptLimit.Attempt
        switch try await reportLimit.reserve(String(user.rawValue), now: now()) {
        case .allowed(let allowed): attempt = allowed
        case .refused(let seconds): return .limited(retryAfter: seconds)
        }
        switch try await store.dispatch(.reportQuote(quote, by: user, reason: reason, at: now())) {
        case .success: return .reported
        case .failure(let rejection):
            try await reportLimit.release(attempt)
            switch rejection {
            case .alreadyReported: return .reported
            case .invalidReason(let problem): return .invalidReason(problem)
            default: return .notFound
            }
        }
    }

    /// The queue: reported quotes, the most recently reported first, and hidden ones.
    package func queue(problem: FieldProblem? = nil) -> ModerationQueue {
        let state = store.state
        let byQuote = Dictionary(grouping: state.moderation.reports.values, by: \.quote)
        let reported = byQuote.compactMap { id, reports -> ReportedQuote? in
            guard let quote = state.quotes[id] else { return nil }
            let sorted = reports.sorted { $0.id < $1.id }
            return ReportedQuote(
                quote: quote, addedBy: quote.addedBy.flatMap { state.users[$0] },
                reports: sorted.map { (report: $0, reporter: state.users[$0.reporter]) })
        }.sorted { ($0.reports.last?.report.id ?? ReportID(0)) > ($1.reports.last?.report.id ?? ReportID(0)) }
        let hidden = state.moderation.hidden.values.sorted { $0.note.at > $1.note.at || ($0.note.at == $1.note.at && $0.quote.id.rawValue > $1.quote.id.rawValue) }
        return ModerationQueue(reported: reported, hidden: hidden, problem: problem)
    }

    /// Every moderation action, newest first.
    package func log() -> [ModerationLogLine] {
        let state = store.state
        return state.moderation.log.reversed().map { entry in
            ModerationLogLine(entry: entry, moderator: entry.note.by.flatMap { state.users[$0] }, user: entry.user.flatMap { state.users[$0] })
        }
    }

    package func dismiss(_ report: ReportID, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        Self.outcome(try await store.dispatch(.dismissReport(report, by: moderator, at: now())))
    }

    package func hide(_ quote: QuoteID, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        Self.outcome(try await store.dispatch(.hideQuote(quote, by: moderator, reason: reason, at: now())))
    }

    package func unhide(_ quote: QuoteID, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        Self.outcome(try await store.dispatch(.unhideQuote(quote, by: moderator, reason: reason, at: now())))
    }

    private static func outcome(_ result: Result<AppEvent, ActionRejection>) -> ModerationActionState {
        switch result {
        case .success: .done
        case .failure(.invalidReason(let problem)): .invalidReason(problem)
        case .failure(.notAllowed): .notAllowed
        case .failure: .notFound
        }
    }
}

package import Foundation
package import Store

/// The logic of reports and moderation (SPEC.md "Moderation"): reporting a quote, the queue of
/// reports, the log, and the moderators' actions, each one action through the store. No HTTP, no
/// HTML; who may moderate is the reducer's rule (and the access gate's, before it).
package struct ModerationController: Sendable {
    /// Reports one person may make an hour.
    package static let reportsPerPersonHour = 10
    package static let reportNamespace = "report"

    /// Versions read from the journal at a time while planning a revert, newest first.
    static let revertReadSize = 32

    let store: any StateStore
    let reportLimit: AttemptLimit
    let sessions: SessionKeeper
    let now: @Sendable () -> Date

    package init(store: any StateStore, attempts: any SignInFailureStorage, sessions: SessionKeeper, now: @escaping @Sendable () -> Date) {
        self.store = store
        reportLimit = AttemptLimit(namespace: Self.reportNamespace, limit: Self.reportsPerPersonHour, window: 3_600, storage: attempts)
        self.sessions = sessions
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

    /// Suspends `username`'s account: once the suspension is in the journal (from which every
    /// instance stops believing their sessions), every session of theirs is deleted, on every
    /// instance (the session storage's endings reach the others' caches).
    /// Suspended already (a second click, or another moderator first) is done too, and still
    /// ends whatever session is left.
    package func suspend(_ username: Username, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        guard let user = store.state.user(named: username) else { return .notFound }
        let outcome = settled(
            try await store.dispatch(.suspend(user.id, by: moderator, reason: reason, at: now())), user.id, suspended: true, by: moderator)
        if outcome == .done { try await sessions.endSessions(of: user.id, except: nil) }
        return outcome
    }

    package func unsuspend(_ username: Username, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        guard let user = store.state.user(named: username) else { return .notFound }
        return settled(
            try await store.dispatch(.unsuspend(user.id, by: moderator, reason: reason, at: now())), user.id, suspended: false,
            by: moderator)
    }

    /// `result` of a suspension or its lifting, where a refusal because `user` already is as
    /// asked (and the asker may moderate them) counts as done.
    private func settled(_ result: Result<AppEvent, ActionRejection>, _ user: UserID, suspended: Bool, by moderator: UserID)
        -> ModerationActionState
    {
        let state = store.state.moderation
        if case .failure(.notAllowed) = result, state.isModerator(moderator), !state.isModerator(user),
            (state.suspended[user] != nil) == suspended
        {
            return .done
        }
        return Self.outcome(result)
    }

    /// Takes back `username`'s edits (SPEC.md `/users/{username}/revert`): plans from each of
    /// their quotes' histories, newest versions first, then dispatches one action. A quote
    /// changed by someone else meanwhile is left as it is (the reducer checks each against its
    /// planned version).
    package func revert(_ username: Username, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        if let problem = ModerationState.problem(withReason: reason) { return .invalidReason(problem) }
        let state = store.state
        guard let user = state.user(named: username) else { return .notFound }
        guard state.moderation.isModerator(moderator), !state.moderation.isModerator(user.id) else { return .notAllowed }
        let theirs = state.quoteOrder.compactMap { state.quotes[$0] }.filter { $0.updatedBy == user.id }
        var plan = RevertPlan()
        for quote in theirs {
            switch try await newestVersion(of: quote, notBy: user.id) {
            case .some(let version?):
                plan.restores.append(
                    RevertPlan.Restore(
                        quote: quote.id, baseVersion: quote.version, draft: QuoteDraft(text: version.text, author: version.author),
                        fromVersion: version.version))
            case .some(nil):
                plan.hides.append(RevertPlan.Hide(quote: quote.id, baseVersion: quote.version))
            case nil:
                continue
            }
        }
        return Self.outcome(try await store.dispatch(.revertEdits(user.id, by: moderator, reason: reason, at: now(), plan: plan)))
    }

    /// The newest of `quote`'s versions not made by `user` (`.some(nil)`: they made every one),
    /// read a few at a time from its current one back; nil when the quote changed or went while
    /// reading (the history then no longer ends at `quote.version`).
    private func newestVersion(of quote: Quote, notBy user: UserID) async throws(StoreError) -> QuoteVersion?? {
        var newest = quote.version
        while newest >= 1 {
            let versions = try await store.history(of: quote.id, versions: max(1, newest - Self.revertReadSize + 1)...newest)
            guard versions.last?.version == newest else { return nil }
            if let found = versions.last(where: { $0.editedBy != user }) { return .some(found) }
            newest -= versions.count
        }
        return .some(nil)
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

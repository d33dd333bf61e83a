package import Foundation
package import Store

/// The logic of reports and moderation (SPEC.md "Moderation"): reporting a quote, the queue of
/// reports, the log, and the moderators' actions, each one action through the store. No HTTP, no
/// HTML; who may moderate is the reducer's rule (and the access middleware's, before it).
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

    /// Reported quotes on a page of the queue.
    package static let reportedQuotesPerPage = 20
    /// Reports shown of one quote (the newest; the page says how many more there are).
    package static let reportsShownPerQuote = 10
    /// Hidden quotes on the queue's page (the most recent), and on a page of them all.
    package static let recentlyHiddenShown = 10
    package static let hiddenQuotesPerPage = 50
    package static let logLinesPerPage = 100

    /// Page `page` of the queue: reported quotes, the most recently reported first, each with its
    /// newest reports; the quotes hidden most recently. Nil for a page past the last. However
    /// many reports there are, a page shows a bounded number of them.
    package func queue(page: Int = 1, problem: FieldProblem? = nil) -> ModerationQueue? {
        let state = store.state
        var newest: [QuoteID: ReportID] = [:]
        for report in state.moderation.reports.values where newest[report.quote].map({ $0 < report.id }) ?? true {
            newest[report.quote] = report.id
        }
        let order = newest.filter { state.quotes[$0.key] != nil }.sorted { $0.value > $1.value }.map(\.key)
        guard let shown = Self.page(page, of: order, size: Self.reportedQuotesPerPage) else { return nil }
        let wanted = Set(shown.items)
        let byQuote = Dictionary(grouping: state.moderation.reports.values.lazy.filter { wanted.contains($0.quote) }, by: \.quote)
        let reported = shown.items.compactMap { id -> ReportedQuote? in
            guard let quote = state.quotes[id], let reports = byQuote[id] else { return nil }
            let sorted = reports.sorted { $0.id < $1.id }.suffix(Self.reportsShownPerQuote)
            return ReportedQuote(
                quote: quote, addedBy: quote.addedBy.flatMap { state.users[$0] },
                reports: sorted.map { (report: $0, reporter: state.users[$0.reporter]) }, reportCount: reports.count)
        }
        return ModerationQueue(
            reported: ModerationPage(items: reported, page: shown.page, pageCount: shown.pageCount),
            recentlyHidden: Array(Self.newestHidden(in: state).prefix(Self.recentlyHiddenShown)),
            hiddenCount: state.moderation.hidden.count, problem: problem)
    }

    /// Page `page` of the hidden quotes, the most recently hidden first; nil past the last.
    package func hidden(page: Int) -> ModerationPage<HiddenQuote>? {
        Self.page(page, of: Self.newestHidden(in: store.state), size: Self.hiddenQuotesPerPage)
    }

    /// Page `page` of every moderation action, newest first; nil past the last.
    package func log(page: Int = 1) -> ModerationPage<ModerationLogLine>? {
        let state = store.state
        guard let shown = Self.page(page, of: Array(state.moderation.log.indices.reversed()), size: Self.logLinesPerPage) else { return nil }
        let lines = shown.items.map { index in
            let entry = state.moderation.log[index]
            return ModerationLogLine(entry: entry, moderator: entry.note.by.flatMap { state.users[$0] }, user: entry.user.flatMap { state.users[$0] })
        }
        return ModerationPage(items: lines, page: shown.page, pageCount: shown.pageCount, firstNumber: shown.firstNumber)
    }

    private static func newestHidden(in state: AppState) -> [HiddenQuote] {
        state.moderation.hidden.values.sorted { $0.note.at > $1.note.at || ($0.note.at == $1.note.at && $0.quote.id > $1.quote.id) }
    }

    /// Page `page` (from 1) of `items`, `size` a page; page 1 of an empty list exists.
    private static func page<Item>(_ page: Int, of items: [Item], size: Int) -> ModerationPage<Item>? {
        guard let paging = Paging(page: page, of: items.count, size: size) else { return nil }
        return ModerationPage(
            items: Array(items[paging.items]), page: paging.page, pageCount: paging.pageCount, firstNumber: paging.firstNumber)
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

    /// Lifting a suspension ends any session left too: one a sign-in started on an instance that
    /// had not heard of the suspension would otherwise come back to life.
    package func unsuspend(_ username: Username, reason: String, by moderator: UserID) async throws(StoreError) -> ModerationActionState {
        guard let user = store.state.user(named: username) else { return .notFound }
        let outcome = settled(
            try await store.dispatch(.unsuspend(user.id, by: moderator, reason: reason, at: now())), user.id, suspended: false,
            by: moderator)
        if outcome == .done { try await sessions.endSessions(of: user.id, except: nil) }
        return outcome
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
        let state = store.state
        guard let user = state.user(named: username) else { return .notFound }
        // The reducer's rules, checked before the journal is read for a plan it would refuse.
        guard state.moderation.isModerator(moderator), !state.moderation.isModerator(user.id) else { return .notAllowed }
        if let problem = ModerationState.problem(withReason: reason) { return .invalidReason(problem) }
        let theirs = state.quotes.values.filter { $0.updatedBy == user.id }.sorted { $0.id < $1.id }
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
        // Nothing of theirs is current (reverted already): nothing to record.
        if plan.restores.isEmpty && plan.hides.isEmpty { return .done }
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

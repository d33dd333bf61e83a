import Foundation

/// The pure reducer: the only code that changes ``AppState``. No I/O, no clock, no randomness —
/// everything it needs is in the action, so replaying the journal rebuilds the same state.
///
/// Two halves: ``validate(_:in:)`` decides whether an action may happen, once, at dispatch;
/// ``apply(_:to:)`` carries out an action already accepted, as a fact. Replay uses only `apply`,
/// so a rule tightened later (or a new Unicode table) never refuses what was once accepted.
package enum AppReducer {
    /// Validates `action` against `state` and applies it, returning what happened, or throws why
    /// it was refused (leaving `state` unchanged). What ``Store/dispatch(_:)`` does.
    package static func reduce(_ state: inout AppState, _ action: AppAction) throws(ActionRejection) -> AppEvent {
        try validate(action, in: state)
        return apply(action, to: &state)
    }

    /// Throws why `action` may not happen in `state`; returns when it may.
    package static func validate(_ action: AppAction, in state: AppState) throws(ActionRejection) {
        // A suspended person changes nothing in the book, even through a session another instance
        // honoured before it heard of the suspension; leaving (deleting the account) stays theirs.
        if let actor = action.actor, state.moderation.suspended[actor] != nil, action.isContribution { throw .notAllowed }
        switch action {
        case let .addQuote(draft, _, _):
            let problems = draft.problems
            guard problems.isEmpty else { throw .invalidQuote(problems) }

        case let .editQuote(id, draft, baseVersion, _, _):
            guard let quote = state.quotes[id] else { throw .quoteNotFound(id) }
            guard quote.version == baseVersion else { throw .staleVersion(current: quote) }
            let problems = draft.problems
            guard problems.isEmpty else { throw .invalidQuote(problems) }

        case let .restoreQuote(id, _, fromVersion, _, _):
            guard let quote = state.quotes[id] else { throw .quoteNotFound(id) }
            // The current version is already current; versions count from 1.
            // An old version was valid under the rules of its day, so its draft is not checked.
            guard fromVersion >= 1, fromVersion < quote.version else { throw .quoteNotFound(id) }

        case let .deleteQuote(id, user, _):
            guard let quote = state.quotes[id] else { throw .quoteNotFound(id) }
            guard quote.addedBy == user else { throw .notAllowed }

        case let .signUp(username, displayName, _):
            guard state.userIDsByName[username] == nil else { throw .usernameTaken(username) }
            if let problem = User.problem(withDisplayName: displayName) { throw .invalidDisplayName(problem) }

        case let .changeDisplayName(id, name, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }
            if let problem = User.problem(withDisplayName: name) { throw .invalidDisplayName(problem) }

        case let .setPhoto(id, _, _), let .passwordChanged(id, _), let .deleteAccount(id, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }

        case .erased:
            // Only a journal writes it, over entries already applied.
            throw .notAllowed

        case let .setFavourite(id, quoteID, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }
            guard state.quotes[quoteID] != nil else { throw .quoteNotFound(quoteID) }

        case let .setRole(id, _, _):
            guard state.users[id] != nil else { throw .userNotFound(id) }

        case let .reportQuote(id, reporter, reason, _):
            guard state.users[reporter] != nil else { throw .userNotFound(reporter) }
            guard state.quotes[id] != nil else { throw .quoteNotFound(id) }
            if let open = state.moderation.openReport(of: id, by: reporter) { throw .alreadyReported(open.id) }
            if let problem = ModerationState.problem(withReason: reason) { throw .invalidReason(problem) }

        case let .dismissReport(id, moderator, _):
            guard state.moderation.isModerator(moderator) else { throw .notAllowed }
            guard state.moderation.reports[id] != nil else { throw .reportNotFound(id) }

        case let .hideQuote(id, moderator, reason, _):
            guard state.moderation.isModerator(moderator) else { throw .notAllowed }
            guard state.quotes[id] != nil else { throw .quoteNotFound(id) }
            if let problem = ModerationState.problem(withReason: reason) { throw .invalidReason(problem) }

        case let .unhideQuote(id, moderator, reason, _):
            guard state.moderation.isModerator(moderator) else { throw .notAllowed }
            guard state.moderation.hidden[id] != nil else { throw .quoteNotFound(id) }
            if let problem = ModerationState.problem(withReason: reason) { throw .invalidReason(problem) }

        case let .revertEdits(id, moderator, reason, _, _):
            guard state.moderation.isModerator(moderator) else { throw .notAllowed }
            guard state.users[id] != nil else { throw .userNotFound(id) }
            guard !state.moderation.isModerator(id) else { throw .notAllowed }
            if let problem = ModerationState.problem(withReason: reason) { throw .invalidReason(problem) }

        case let .suspend(id, moderator, reason, _), let .unsuspend(id, moderator, reason, _):
            guard state.moderation.isModerator(moderator) else { throw .notAllowed }
            guard state.users[id] != nil else { throw .userNotFound(id) }
            // Moderators are not moderated: the operator takes the role first.
            guard !state.moderation.isModerator(id) else { throw .notAllowed }
            if case .suspend = action {
                guard state.moderation.suspended[id] == nil else { throw .notAllowed }
            } else {
                guard state.moderation.suspended[id] != nil else { throw .notAllowed }
            }
            if let problem = ModerationState.problem(withReason: reason) { throw .invalidReason(problem) }
        }
    }

    /// Carries out `action`, which was validated when it was dispatched. Total: a fact that no
    /// longer fits (a quote that is gone) changes nothing rather than stopping a replay.
    package static func apply(_ action: AppAction, to state: inout AppState) -> AppEvent {
        switch action {
        case let .addQuote(draft, user, date):
            let clean = draft.trimmed
            let id = state.nextQuoteID
            state.quotes[id] = Quote(
                id: id, text: clean.text, author: clean.author, version: 1,
                addedBy: user, addedAt: date, updatedBy: user, updatedAt: date
            )
            state.quoteOrder.append(id)
            state.searchIndex.update(id, text: clean.text, author: clean.author)
            state.lastChangedQuote = id
            state.nextQuoteID = QuoteID(id.rawValue + 1)
            return .quoteAdded(id)

        case let .editQuote(id, draft, _, user, date):
            let version = replaceText(of: id, with: draft, by: user, at: date, in: &state)
            return .quoteEdited(id, version: version)

        case let .restoreQuote(id, draft, _, user, date):
            let version = replaceText(of: id, with: draft, by: user, at: date, in: &state)
            return .quoteRestored(id, version: version)

        case let .deleteQuote(id, _, _):
            guard state.quotes.removeValue(forKey: id) != nil else { return .quoteDeleted(id) }
            if let index = state.quoteOrder.lastIndex(of: id) { state.quoteOrder.remove(at: index) }
            state.searchIndex.remove(id)
            for (userID, user) in state.users where user.favourite == id {
                state.users[userID]?.favourite = nil
            }
            if state.lastChangedQuote == id { state.lastChangedQuote = state.quoteOrder.last }
            return .quoteDeleted(id)

        case let .signUp(username, displayName, date):
            let id = state.nextUserID
            state.users[id] = User(
                id: id, username: username, displayName: QuoteDraft.trimmingWhitespace(displayName), joinedAt: date)
            state.userIDsByName[username] = id
            state.nextUserID = UserID(id.rawValue + 1)
            return .userSignedUp(id)

        case let .changeDisplayName(id, name, _):
            state.users[id]?.displayName = QuoteDraft.trimmingWhitespace(name)
            return .profileChanged(id)

        case let .setPhoto(id, photo, _):
            let replaced = state.users[id]?.photo
            state.users[id]?.photo = photo
            return .photoChanged(id, replaced: replaced)

        case let .setFavourite(id, quoteID, _):
            state.users[id]?.favourite = quoteID
            return .profileChanged(id)

        case let .passwordChanged(id, _):
            // The hash lives in account storage; the state only learns that it changed.
            return .passwordChanged(id)

        case let .deleteAccount(id, _):
            // Their role, suspension and open reports go with them (the reports were erased from
            // the journal with their other entries); the log keeps what moderators did.
            state.moderation.moderators.remove(id)
            state.moderation.suspended[id] = nil
            state.moderation.reports = state.moderation.reports.filter { $0.value.reporter != id }
            // Replayed after its person's entries were erased, there is no one left to remove.
            guard let user = state.users.removeValue(forKey: id) else { return .accountDeleted(id, photo: nil) }
            if state.userIDsByName[user.username] == id { state.userIDsByName[user.username] = nil }
            return .accountDeleted(id, photo: user.photo)

        case let .erased(id):
            // It was the sign-up that took this id, or a later change to an account it no longer
            // matters for: either way, ids up to it are taken.
            if id.rawValue >= state.nextUserID.rawValue { state.nextUserID = UserID(id.rawValue + 1) }
            return .erasedEntryReplayed(id)

        case let .setRole(id, role, date):
            return setRole(id, role, at: date, in: &state)
        case let .reportQuote(quote, reporter, reason, date):
            return report(quote, by: reporter, reason: reason, at: date, in: &state)
        case let .dismissReport(id, moderator, date):
            let report = state.moderation.reports.removeValue(forKey: id)
            state.moderation.log.append(
                ModerationEntry(kind: .reportDismissed, note: ModerationNote(by: moderator, reason: "", at: date), quote: report?.quote))
            return .reportDismissed(id)
        case let .hideQuote(id, moderator, reason, date):
            return hide(id, note: ModerationNote(by: moderator, reason: QuoteDraft.trimmingWhitespace(reason), at: date), in: &state)
        case let .unhideQuote(id, moderator, reason, date):
            return unhide(id, note: ModerationNote(by: moderator, reason: QuoteDraft.trimmingWhitespace(reason), at: date), in: &state)
        case let .suspend(id, moderator, reason, date):
            let note = ModerationNote(by: moderator, reason: QuoteDraft.trimmingWhitespace(reason), at: date)
            state.moderation.suspended[id] = note
            state.moderation.log.append(ModerationEntry(kind: .suspended, note: note, user: id))
            return .suspended(id)
        case let .unsuspend(id, moderator, reason, date):
            let note = ModerationNote(by: moderator, reason: QuoteDraft.trimmingWhitespace(reason), at: date)
            state.moderation.suspended[id] = nil
            state.moderation.log.append(ModerationEntry(kind: .unsuspended, note: note, user: id))
            return .unsuspended(id)
        case let .revertEdits(id, moderator, reason, date, plan):
            return revert(id, plan, note: ModerationNote(by: moderator, reason: QuoteDraft.trimmingWhitespace(reason), at: date), in: &state)
        }
    }

    /// Carries out a revert of `user`'s edits: each planned quote still at its planned version,
    /// by them, is taken back or hidden; one line in the log counts what was done.
    private static func revert(_ user: UserID, _ plan: RevertPlan, note: ModerationNote, in state: inout AppState) -> AppEvent {
        func isStill(_ id: QuoteID, at version: Int) -> Bool {
            guard let quote = state.quotes[id] else { return false }
            return quote.version == version && quote.updatedBy == user
        }
        var restored: [RevertedVersion] = []
        for step in plan.restores where isStill(step.quote, at: step.baseVersion) && step.fromVersion < step.baseVersion {
            let version = replaceText(of: step.quote, with: step.draft, by: note.by, at: note.at, in: &state)
            restored.append(RevertedVersion(quote: step.quote, version: version))
        }
        let hidden = plan.hides.filter { isStill($0.quote, at: $0.baseVersion) }.map(\.quote)
        hide(Set(hidden), note: note, in: &state)
        state.moderation.log.append(
            ModerationEntry(kind: .reverted, note: note, user: user, reverted: restored.count, hidden: hidden.count))
        return .reverted(user, restored: restored, hidden: hidden)
    }

    private static func setRole(_ id: UserID, _ role: Role, at date: Date, in state: inout AppState) -> AppEvent {
        switch role {
        case .moderator: state.moderation.moderators.insert(id)
        case .member: state.moderation.moderators.remove(id)
        }
        let note = ModerationNote(by: nil, reason: "", at: date)
        state.moderation.log.append(ModerationEntry(kind: role == .moderator ? .roleGiven : .roleTaken, note: note, user: id))
        return .roleChanged(id)
    }

    private static func report(_ quote: QuoteID, by reporter: UserID, reason: String, at date: Date, in state: inout AppState) -> AppEvent {
        let id = state.moderation.nextReportID
        state.moderation.reports[id] = Report(id: id, quote: quote, reporter: reporter, reason: QuoteDraft.trimmingWhitespace(reason), at: date)
        state.moderation.nextReportID = ReportID(id.rawValue + 1)
        return .quoteReported(id, by: reporter)
    }

    /// Moves quote `id` out of the book (every list, search and feed reads ``AppState/quotes``)
    /// into the hidden ones, closing its reports.
    private static func hide(_ id: QuoteID, note: ModerationNote, in state: inout AppState) -> AppEvent {
        guard state.quotes[id] != nil else { return .quoteHidden(id) }
        hide([id], note: note, in: &state)
        state.moderation.log.append(ModerationEntry(kind: .quoteHidden, note: note, quote: id))
        return .quoteHidden(id)
    }

    /// Moves the quotes `ids` that are in the book out of it, in one pass over the order however
    /// many they are (a revert may hide thousands).
    private static func hide(_ ids: Set<QuoteID>, note: ModerationNote, in state: inout AppState) {
        var moved = 0
        for id in ids {
            guard let quote = state.quotes.removeValue(forKey: id) else { continue }
            state.searchIndex.remove(id)
            state.moderation.hidden[id] = HiddenQuote(quote: quote, note: note)
            moved += 1
        }
        guard moved > 0 else { return }
        state.quoteOrder.removeAll { ids.contains($0) }
        if let last = state.lastChangedQuote, ids.contains(last) { state.lastChangedQuote = state.quoteOrder.last }
        state.moderation.reports = state.moderation.reports.filter { !ids.contains($0.value.quote) }
    }

    /// Puts hidden quote `id` back in its place: ids are given in the order quotes are added.
    private static func unhide(_ id: QuoteID, note: ModerationNote, in state: inout AppState) -> AppEvent {
        guard let hidden = state.moderation.hidden.removeValue(forKey: id) else { return .quoteUnhidden(id) }
        state.quotes[id] = hidden.quote
        var low = 0, high = state.quoteOrder.count
        while low < high {
            let middle = (low + high) / 2
            if state.quoteOrder[middle].rawValue < id.rawValue { low = middle + 1 } else { high = middle }
        }
        state.quoteOrder.insert(id, at: low)
        state.searchIndex.update(id, text: hidden.quote.text, author: hidden.quote.author)
        state.moderation.log.append(ModerationEntry(kind: .quoteUnhidden, note: note, quote: id))
        return .quoteUnhidden(id)
    }

    /// Makes `draft` the current text of quote `id` as its next version; returns that version
    /// (0 when the quote is gone, which a validated action never meets).
    private static func replaceText(
        of id: QuoteID, with draft: QuoteDraft, by user: UserID?, at date: Date, in state: inout AppState
    ) -> Int {
        guard var quote = state.quotes[id] else { return 0 }
        let clean = draft.trimmed
        quote.text = clean.text
        quote.author = clean.author
        quote.version += 1
        quote.updatedBy = user
        quote.updatedAt = date
        state.quotes[id] = quote
        state.searchIndex.update(id, text: quote.text, author: quote.author)
        state.lastChangedQuote = id
        return quote.version
    }
}

import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// The moderation actions in the reducer (SPEC.md "Moderation", issue 31): who may do what, what
/// hiding takes out of the book and gives back, and that a book rebuilt from its journal has the
/// same moderators, hidden quotes, suspensions, reports and log.
@Suite struct ModerationReducerTests {
    let date = Date(timeIntervalSince1970: 1_795_330_800)

    /// Ada (1) and Bob (2) are members, Moe (3) and Max (4) moderators; five quotes, Bob's 2 and 4.
    func book() throws -> [AppAction] {
        var actions: [AppAction] = [
            .signUp(Username("ada")!, displayName: "Ada", at: date), .signUp(Username("bob")!, displayName: "Bob", at: date),
            .signUp(Username("moe")!, displayName: "Moe", at: date), .signUp(Username("max")!, displayName: "Max", at: date),
            .setRole(UserID(3), .moderator, at: date), .setRole(UserID(4), .moderator, at: date),
        ]
        for index in 1...5 {
            actions.append(.addQuote(QuoteDraft(text: "Quote \(index) words", author: "A"), by: UserID(index % 2 == 0 ? 2 : 1), at: date))
        }
        return actions
    }

    func state(_ actions: [AppAction]) throws -> AppState {
        var state = AppState()
        for action in actions { _ = try AppReducer.reduce(&state, action) }
        return state
    }

    @Test func onlyModeratorsModerateAndModeratorsAreNotModerated() throws {
        var state = try state(try book())
        let refused: [AppAction] = [
            .hideQuote(QuoteID(1), by: UserID(1), reason: "mine", at: date),
            .suspend(UserID(2), by: UserID(1), reason: "x", at: date),
            .suspend(UserID(4), by: UserID(3), reason: "a moderator", at: date),
            .unsuspend(UserID(2), by: UserID(3), reason: "not suspended", at: date),
        ]
        for action in refused { #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, action) } }
        #expect(throws: ActionRejection.reportNotFound(ReportID(9))) {
            try AppReducer.reduce(&state, .dismissReport(ReportID(9), by: UserID(3), at: date))
        }
        #expect(try AppReducer.reduce(&state, .suspend(UserID(2), by: UserID(3), reason: "vandal", at: date)) == .suspended(UserID(2)))
        #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, .suspend(UserID(2), by: UserID(3), reason: "again", at: date)) }
        #expect(state.moderation.suspended[UserID(2)]?.reason == "vandal")
        _ = try AppReducer.reduce(&state, .setRole(UserID(3), .member, at: date))
        #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, .unsuspend(UserID(2), by: UserID(3), reason: "x", at: date)) }
    }

    /// A suspended person's session may be honoured a moment longer by an instance that has not
    /// heard yet; the store itself refuses what they would add, and lets them leave.
    @Test func aSuspendedPersonChangesNothingButMayLeave() throws {
        var state = try state(try book())
        _ = try AppReducer.reduce(&state, .suspend(UserID(2), by: UserID(3), reason: "vandal", at: date))
        let refused: [AppAction] = [
            .addQuote(QuoteDraft(text: "More", author: "B"), by: UserID(2), at: date),
            .editQuote(QuoteID(1), QuoteDraft(text: "Defaced", author: "B"), baseVersion: 1, by: UserID(2), at: date),
            .deleteQuote(QuoteID(2), by: UserID(2), at: date),
            .changeDisplayName(UserID(2), to: "Spam", at: date),
            .setFavourite(UserID(2), QuoteID(1), at: date),
            .reportQuote(QuoteID(1), by: UserID(2), reason: "revenge", at: date),
        ]
        for action in refused { #expect(throws: ActionRejection.notAllowed, "\(action.kind)") { try AppReducer.reduce(&state, action) } }
        #expect(state.quotes[QuoteID(1)]?.version == 1 && state.users[UserID(2)]?.displayName == "Bob")
        #expect(try AppReducer.reduce(&state, .editQuote(QuoteID(1), QuoteDraft(text: "Ada's", author: "A"), baseVersion: 1, by: UserID(1), at: date)) == .quoteEdited(QuoteID(1), version: 2))
        #expect(try AppReducer.reduce(&state, .deleteAccount(UserID(2), at: date)) == .accountDeleted(UserID(2), photo: nil))
    }

    @Test func aReportIsOnePerPersonAndQuoteWithAReasonThatCanBeKept() throws {
        var state = try state(try book())
        #expect(try AppReducer.reduce(&state, .reportQuote(QuoteID(2), by: UserID(1), reason: "  spam  ", at: date)) == .quoteReported(ReportID(1), by: UserID(1)))
        #expect(state.moderation.reports[ReportID(1)]?.reason == "spam")
        #expect(throws: ActionRejection.alreadyReported(ReportID(1))) {
            try AppReducer.reduce(&state, .reportQuote(QuoteID(2), by: UserID(1), reason: "again", at: date))
        }
        for reason in ["", "   ", String(repeating: "x", count: 501), "nul\u{0}", "bidi\u{202E}"] {
            #expect(throws: ActionRejection.self) { try AppReducer.reduce(&state, .reportQuote(QuoteID(3), by: UserID(1), reason: reason, at: date)) }
        }
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(99))) {
            try AppReducer.reduce(&state, .reportQuote(QuoteID(99), by: UserID(1), reason: "x", at: date))
        }
        _ = try AppReducer.reduce(&state, .reportQuote(QuoteID(2), by: UserID(2), reason: "<script>", at: date))
        _ = try AppReducer.reduce(&state, .dismissReport(ReportID(1), by: UserID(3), at: date))
        #expect(state.moderation.reports.keys.sorted() == [ReportID(2)])
        #expect(try AppReducer.reduce(&state, .reportQuote(QuoteID(2), by: UserID(1), reason: "still", at: date)) == .quoteReported(ReportID(3), by: UserID(1)),
            "a dismissed report no longer counts as open")
    }

    @Test func aHiddenQuoteLeavesEveryListAndComesBackInItsPlace() throws {
        var state = try state(try book())
        _ = try AppReducer.reduce(&state, .setFavourite(UserID(1), QuoteID(3), at: date))
        _ = try AppReducer.reduce(&state, .reportQuote(QuoteID(3), by: UserID(2), reason: "bad", at: date))
        _ = try AppReducer.reduce(&state, .reportQuote(QuoteID(4), by: UserID(1), reason: "also bad", at: date))
        #expect(try AppReducer.reduce(&state, .hideQuote(QuoteID(3), by: UserID(3), reason: "Off topic", at: date)) == .quoteHidden(QuoteID(3)))
        #expect(state.quotes[QuoteID(3)] == nil && !state.quoteOrder.contains(QuoteID(3)))
        #expect(state.searchIndex.matches(SearchQuery("quote 3")).isEmpty)
        #expect(state.moderation.hidden[QuoteID(3)]?.note == ModerationNote(by: UserID(3), reason: "Off topic", at: date))
        #expect(state.moderation.reports.values.map(\.quote) == [QuoteID(4)], "its reports closed, others stay")
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(3))) {
            try AppReducer.reduce(&state, .editQuote(QuoteID(3), QuoteDraft(text: "x", author: "y"), baseVersion: 1, by: UserID(1), at: date))
        }
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(3))) { try AppReducer.reduce(&state, .hideQuote(QuoteID(3), by: UserID(3), reason: "x", at: date)) }
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(3))) {
            try AppReducer.reduce(&state, .reportQuote(QuoteID(3), by: UserID(1), reason: "x", at: date))
        }
        _ = try AppReducer.reduce(&state, .unhideQuote(QuoteID(3), by: UserID(4), reason: "On second thought", at: date))
        #expect(state.quoteOrder == [1, 2, 3, 4, 5].map { QuoteID($0) })
        #expect(state.searchIndex.matches(SearchQuery("quote 3")) == [QuoteID(3)])
        #expect(state.users[UserID(1)]?.favourite == QuoteID(3), "a favourite comes back with its quote")
        #expect(state.moderation.log.map(\.kind) == [.roleGiven, .roleGiven, .quoteHidden, .quoteUnhidden])
    }

    @Test func aDeletedAccountTakesItsRoleSuspensionAndReportsWithIt() throws {
        var state = try state(try book())
        _ = try AppReducer.reduce(&state, .reportQuote(QuoteID(1), by: UserID(2), reason: "bad", at: date))
        _ = try AppReducer.reduce(&state, .suspend(UserID(2), by: UserID(3), reason: "vandal", at: date))
        _ = try AppReducer.reduce(&state, .deleteAccount(UserID(2), at: date))
        _ = try AppReducer.reduce(&state, .deleteAccount(UserID(4), at: date))
        #expect(state.moderation.reports.isEmpty && state.moderation.suspended.isEmpty)
        #expect(state.moderation.moderators == [UserID(3)])
        #expect(state.moderation.log.count == 3, "what moderators did stays in the log")
    }

    /// SPEC.md "Every moderation action is an action in the journal": a book rebuilt from the
    /// journal alone has the same moderation.
    @Test func aBookRebuiltFromItsJournalHasTheSameModeration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Store(journal: try SQLiteJournal(directory: directory.url), seed: try book(), logger: .discarding())
        let moderation: [AppAction] = [
            .reportQuote(QuoteID(2), by: UserID(1), reason: "Spam", at: date),
            .reportQuote(QuoteID(5), by: UserID(2), reason: "Dull", at: date),
            .hideQuote(QuoteID(2), by: UserID(3), reason: "Spam indeed", at: date),
            .suspend(UserID(2), by: UserID(4), reason: "Spammer", at: date),
            .dismissReport(ReportID(2), by: UserID(3), at: date),
            .hideQuote(QuoteID(4), by: UserID(3), reason: "Also spam", at: date),
            .unhideQuote(QuoteID(4), by: UserID(4), reason: "Not spam", at: date),
        ]
        for action in moderation { #expect(try await store.dispatch(action).get().kind != "") }
        let live = store.state
        await store.close()
        try? FileManager.default.removeItem(atPath: SQLiteJournal.path(inDirectory: directory.url) + "-snapshot")
        let replayed = try Store(journal: try SQLiteJournal(directory: directory.url), logger: .discarding())
        #expect(replayed.state.moderation == live.moderation)
        #expect(replayed.state.quoteOrder == live.quoteOrder)
        #expect(replayed.state.quotes[QuoteID(2)] == nil && replayed.state.moderation.hidden[QuoteID(2)] != nil)
        #expect(replayed.state.moderation.log.map(\.kind) == [.roleGiven, .roleGiven, .quoteHidden, .suspended, .reportDismissed, .quoteHidden, .quoteUnhidden])
        // A quote's history holds its versions only: hiding is not one.
        #expect(try await replayed.history(of: QuoteID(4)).map(\.version) == [1])
        await replayed.close()
    }
}

import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// Reverting a person's edits (SPEC.md `/users/{username}/revert`, issue 31): one action that
/// takes back every quote whose current version they made and hides the ones only they wrote,
/// indexed into each quote's history, replayed alike; and what an account's erasure leaves of
/// moderation, replayed alike too.
@Suite struct RevertTests {
    let date = Date(timeIntervalSince1970: 1_795_330_800)
    static let ada = UserID(1), vandal = UserID(2), moe = UserID(3), max = UserID(4)

    /// Ada (1), the vandal (2), Moe (3) and Max (4), moderators. Ada adds quotes 1–3, the
    /// vandal defaces 1 twice and 2 once and adds 4; Ada then mends 2 herself. So 1 goes back
    /// to Ada's version 1, 2 is Ada's already, 4 is only the vandal's.
    var book: [AppAction] {
        [
            .signUp(Username("ada")!, displayName: "Ada", at: date), .signUp(Username("vandal")!, displayName: "V", at: date),
            .signUp(Username("moe")!, displayName: "Moe", at: date), .signUp(Username("max")!, displayName: "Max", at: date),
            .setRole(Self.moe, .moderator, at: date), .setRole(Self.max, .moderator, at: date),
            .addQuote(QuoteDraft(text: "First words", author: "Ada"), by: Self.ada, at: date),
            .addQuote(QuoteDraft(text: "Second words", author: "Ada"), by: Self.ada, at: date),
            .addQuote(QuoteDraft(text: "Third words", author: "Ada"), by: Self.ada, at: date),
            .editQuote(QuoteID(1), QuoteDraft(text: "Defaced", author: "V"), baseVersion: 1, by: Self.vandal, at: date),
            .editQuote(QuoteID(1), QuoteDraft(text: "Defaced again", author: "V"), baseVersion: 2, by: Self.vandal, at: date),
            .editQuote(QuoteID(2), QuoteDraft(text: "Defaced too", author: "V"), baseVersion: 1, by: Self.vandal, at: date),
            .addQuote(QuoteDraft(text: "Buy watches", author: "Spam"), by: Self.vandal, at: date),
            .restoreQuote(QuoteID(2), QuoteDraft(text: "Second words", author: "Ada"), fromVersion: 1, by: Self.ada, at: date),
        ]
    }

    /// The plan the controller makes of `book`: 1 back to version 1 (at 3), 4 hidden (at 1).
    let plan = RevertPlan(
        restores: [RevertPlan.Restore(quote: QuoteID(1), baseVersion: 3, draft: QuoteDraft(text: "First words", author: "Ada"), fromVersion: 1)],
        hides: [RevertPlan.Hide(quote: QuoteID(4), baseVersion: 1)])

    func state(_ actions: [AppAction]) throws -> AppState {
        var state = AppState()
        for action in actions { _ = try AppReducer.reduce(&state, action) }
        return state
    }

    @Test func aRevertTakesBackTheirVersionsAsTheModeratorsAndHidesWhatOnlyTheyWrote() throws {
        var state = try state(book)
        let event = try AppReducer.reduce(&state, .revertEdits(Self.vandal, by: Self.moe, reason: " vandal ", at: date, plan: plan))
        #expect(event == .reverted(Self.vandal, restored: [RevertedVersion(quote: QuoteID(1), version: 4)], hidden: [QuoteID(4)]))
        #expect(state.quotes[QuoteID(1)]?.text == "First words" && state.quotes[QuoteID(1)]?.updatedBy == Self.moe)
        #expect(state.quotes[QuoteID(4)] == nil && state.moderation.hidden[QuoteID(4)]?.note.reason == "vandal")
        #expect(state.quoteOrder == [QuoteID(1), QuoteID(2), QuoteID(3)])
        #expect(state.searchIndex.matches(SearchQuery("watches")).isEmpty && state.searchIndex.matches(SearchQuery("first")) == [QuoteID(1)])
        let line = try #require(state.moderation.log.last)
        #expect(line.kind == .reverted && line.user == Self.vandal && line.reverted == 1 && line.hidden == 1 && line.note.by == Self.moe)
        #expect(event.quoteIDs == [QuoteID(1), QuoteID(4)], "live pages of both hear of it")
    }

    /// A quote someone else changed after the plan was made is theirs now, and stays as it is;
    /// one the vandal changed again is no longer at its planned version either.
    @Test func aQuoteChangedSinceThePlanIsLeftAlone() throws {
        var state = try state(book)
        _ = try AppReducer.reduce(&state, .editQuote(QuoteID(1), QuoteDraft(text: "Mended by Ada", author: "Ada"), baseVersion: 3, by: Self.ada, at: date))
        _ = try AppReducer.reduce(&state, .editQuote(QuoteID(4), QuoteDraft(text: "More spam", author: "Spam"), baseVersion: 1, by: Self.vandal, at: date))
        let event = try AppReducer.reduce(&state, .revertEdits(Self.vandal, by: Self.moe, reason: "vandal", at: date, plan: plan))
        #expect(event == .reverted(Self.vandal, restored: [], hidden: []))
        #expect(state.quotes[QuoteID(1)]?.text == "Mended by Ada" && state.quotes[QuoteID(4)]?.text == "More spam")
        #expect(JournalRecord(.revertEdits(Self.vandal, by: Self.moe, reason: "vandal", at: date, plan: plan), event: event).versions.isEmpty)
    }

    @Test func onlyModeratorsRevertAndNeverAModerator() throws {
        var state = try state(book)
        for action: AppAction in [
            .revertEdits(Self.vandal, by: Self.ada, reason: "not mine to do", at: date, plan: plan),
            .revertEdits(Self.max, by: Self.moe, reason: "a moderator", at: date, plan: RevertPlan()),
        ] {
            #expect(throws: ActionRejection.notAllowed) { try AppReducer.reduce(&state, action) }
        }
        #expect(throws: ActionRejection.self) { try AppReducer.reduce(&state, .revertEdits(Self.vandal, by: Self.moe, reason: " ", at: date, plan: plan)) }
        #expect(throws: ActionRejection.userNotFound(UserID(9))) {
            try AppReducer.reduce(&state, .revertEdits(UserID(9), by: Self.moe, reason: "gone", at: date, plan: plan))
        }
        #expect(state.quotes[QuoteID(1)]?.text == "Defaced again", "nothing refused changed anything")
    }

    /// One entry in the journal, its versions indexed under their quotes: the history of quote 1
    /// shows the moderator's restore as version 4, the moderator's export lists it, and a book
    /// rebuilt from the journal is the same.
    @Test(arguments: JournalBackend.available)
    func aRevertIsOneEntryThatEachQuotesHistoryReads(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: book, logger: .discarding())
            let before = store.appliedJournalSequence
            let event = try await store.dispatch(.revertEdits(Self.vandal, by: Self.moe, reason: "vandal", at: date, plan: plan)).get()
            #expect(event == .reverted(Self.vandal, restored: [RevertedVersion(quote: QuoteID(1), version: 4)], hidden: [QuoteID(4)]))
            #expect(store.appliedJournalSequence == before + 1, "one entry")
            let history = try await store.history(of: QuoteID(1))
            #expect(history.map(\.version) == [1, 2, 3, 4])
            #expect(history.last?.text == "First words" && history.last?.editedBy == Self.moe && history.last?.restoredFrom == 1)
            #expect(try await store.history(of: QuoteID(1), versions: 4...4).map(\.text) == ["First words"])
            #expect(try await store.history(of: QuoteID(2)).map(\.version) == [1, 2, 3], "quote 2 was not the vandal's")
            let made = try await store.versions(madeBy: Self.moe)
            #expect(made.map(\.quote) == [QuoteID(1)] && made.first?.kind == .restored && made.first?.version.version == 4)
            let live = store.state
            await store.close()

            let journal = try location.open()
            let entries = try journal.loadAll()
            var replayed = AppState()
            for entry in entries { _ = AppReducer.apply(entry.action, to: &replayed) }
            #expect(replayed.quotes == live.quotes && replayed.quoteOrder == live.quoteOrder && replayed.moderation == live.moderation)
            // The check command's comparison of every quote's history with the replay.
            for raw in 1...4 {
                var expected: [AppAction] = []
                var state = AppState()
                for entry in entries {
                    let applied = AppReducer.apply(entry.action, to: &state)
                    expected += JournalRecord(entry.action, event: applied).historyActions.filter { $0.quote == QuoteID(raw) }.map(\.action)
                }
                #expect(try journal.actions(forQuote: QuoteID(raw)) == expected, "quote \(raw)")
            }
            journal.close()
        }
    }

    /// Erasing a reporter keeps their report's place with its reason gone (report ids count
    /// reports, and a dismissal names one by id), and what moderators did to a deleted person
    /// stays in the log: a replay of the erased journal has the same moderation as the book did.
    @Test(arguments: JournalBackend.available)
    func anErasedReporterOrSuspendedPersonReplaysToTheSameModeration(on backend: JournalBackend) async throws {
        try await JournalLocation.with(backend) { location in
            let store = try Store(journal: try location.open(), seed: book, logger: .discarding())
            for action: AppAction in [
                .reportQuote(QuoteID(1), by: Self.vandal, reason: "Vandal's secret complaint", at: date),
                .reportQuote(QuoteID(2), by: Self.ada, reason: "Ada's report", at: date),
                .dismissReport(ReportID(1), by: Self.moe, at: date),
                .suspend(Self.vandal, by: Self.moe, reason: "Defacing quotes", at: date),
                .deleteAccount(Self.vandal, at: date),
                .reportQuote(QuoteID(3), by: Self.ada, reason: "Ada's second report", at: date),
                .dismissReport(ReportID(3), by: Self.max, at: date),
            ] {
                _ = try await store.dispatch(action).get()
            }
            let live = store.state.moderation
            #expect(live.reports.keys.sorted() == [ReportID(2)])
            await store.close()

            let journal = try location.open()
            let text = try JournalEntryCoding.encode(journal.loadAll().map(\.action)).joined(separator: "\n")
            #expect(!text.contains("Vandal's secret complaint"), "the reporter's words are erased")
            #expect(text.contains("Ada's report"))
            var replayed = AppState()
            for entry in try journal.loadAll() { _ = AppReducer.apply(entry.action, to: &replayed) }
            journal.close()
            #expect(replayed.moderation == live)
            #expect(replayed.moderation.log.map(\.kind) == [.roleGiven, .roleGiven, .reportDismissed, .suspended, .reportDismissed])
        }
    }
}

import Basics
import App
import Foundation
import Store
import Testing

/// Each state the quote-book methods of ``QuoteController`` return, against a store double.
@Suite struct QuoteBookControllerTests {
    let now = Date(timeIntervalSince1970: 9_000)
    let ada = UserID(1)
    let bob = UserID(2)

    func makeController(failing: Bool = false) throws -> (QuoteController, StateStoreDouble) {
        let at = Date(timeIntervalSince1970: 1_000)
        let store = try StateStoreDouble(
            [
                .signUp(Username("ada")!, displayName: "Ada", at: at),
                .signUp(Username("bob")!, displayName: "Bob", at: at),
                .addQuote(QuoteDraft(text: "One", author: "A"), by: ada, at: at),
                .editQuote(QuoteID(1), QuoteDraft(text: "Uno", author: "A"), baseVersion: 1, by: bob, at: at),
            ], failing: failing)
        let now = self.now
        return (QuoteController(store: store, now: { now }), store)
    }

    @Test func addingReturnsTheNewIdOrTheFormWithItsProblems() async throws {
        let (controller, store) = try makeController()
        #expect(try await controller.add(QuoteDraft(text: "Two", author: "B"), by: ada) == .added(QuoteID(2)))
        #expect(store.dispatched == [.addQuote(QuoteDraft(text: "Two", author: "B"), by: ada, at: now)])
        let empty = QuoteDraft(text: "", author: "B")
        #expect(try await controller.add(empty, by: ada) == .composing(empty, problems: [.text: .empty]))
    }

    @Test func deletingIsForWhoAddedIt() async throws {
        let (controller, store) = try makeController()
        #expect(try await controller.delete(QuoteID(1), by: bob) == .notAllowed)
        #expect(try await controller.delete(QuoteID(5), by: ada) == .notFound)
        #expect(try await controller.delete(QuoteID(1), by: ada) == .deleted(QuoteID(1)))
        #expect(store.state.quotes.isEmpty)
    }

    @Test func showOffersDeleteOnlyToWhoAddedIt() throws {
        let (controller, _) = try makeController()
        guard case .showing(_, _, _, let adaMay) = controller.show(QuoteID(1), viewer: ada),
            case .showing(_, _, _, let bobMay) = controller.show(QuoteID(1), viewer: bob),
            case .showing(_, _, _, let nobodyMay) = controller.show(QuoteID(1), viewer: nil)
        else {
            Issue.record("not showing")
            return
        }
        #expect(adaMay && !bobMay && !nobodyMay)
    }

    @Test func historyIsNewestFirstWithEditorsAndRestoreForTheSignedIn() async throws {
        let (controller, store) = try makeController()
        guard case let .showing(quote, versions, _, _, canRestore) = try await controller.history(of: QuoteID(1), viewer: ada).value() else {
            Issue.record("not showing")
            return
        }
        #expect(quote == store.state.quotes[QuoteID(1)])
        #expect(versions.map(\.version.text) == ["Uno", "One"])
        #expect(versions.map(\.editor?.username.rawValue) == ["bob", "ada"])
        #expect(canRestore)
        guard case .showing(_, _, _, _, let anonymous) = try await controller.history(of: QuoteID(1), viewer: nil).value() else {
            Issue.record("not showing")
            return
        }
        #expect(!anonymous)
        #expect(try await controller.history(of: QuoteID(3), viewer: ada).value() == .notFound)
    }

    @Test func historyIsFiftyVersionsAPageNewestFirstAndReadsOnlyThePageAskedFor() async throws {
        let at = Date(timeIntervalSince1970: 1_000)
        var actions: [AppAction] = [
            .signUp(Username("ada")!, displayName: "Ada", at: at),
            .addQuote(QuoteDraft(text: "v1", author: "A"), by: ada, at: at),
        ]
        for version in 1..<120 {
            actions.append(.editQuote(QuoteID(1), QuoteDraft(text: "v\(version + 1)", author: "A"), baseVersion: version, by: ada, at: at))
        }
        let store = try StateStoreDouble(actions)
        let controller = QuoteController(store: store, now: { at })
        guard case let .showing(quote, versions, page, pageCount, _) = try await controller.history(of: QuoteID(1), page: 2, viewer: nil).value()
        else {
            Issue.record("not showing")
            return
        }
        #expect(quote.version == 120)
        #expect((page, pageCount) == (2, 3))
        #expect(versions.map(\.version.version) == Array((21...70).reversed()))
        #expect(versions.map(\.version.text) == (21...70).reversed().map { "v\($0)" })
        guard case .showing(_, let first, _, _, _) = try await controller.history(of: QuoteID(1), viewer: nil).value(),
            case .showing(_, let last, _, _, _) = try await controller.history(of: QuoteID(1), page: 3, viewer: nil).value()
        else {
            Issue.record("not showing")
            return
        }
        #expect(first.map(\.version.version) == Array((71...120).reversed()))
        #expect(last.map(\.version.version) == Array((1...20).reversed()))
        #expect(store.historyReads == [21...70, 71...120, 1...20], "each page reads its own versions, no more")
        #expect(try await controller.history(of: QuoteID(1), page: 4, viewer: nil).value() == .noSuchPage(quote, pageCount: 3))
        #expect(try await controller.history(of: QuoteID(1), page: 0, viewer: nil).value() == .noSuchPage(quote, pageCount: 3))
        #expect(store.historyReads.count == 3, "a page that does not exist reads nothing")
    }

    @Test func restoreReadsOnlyTheVersionAndTheOneAfterIt() async throws {
        let (controller, store) = try makeController()
        #expect(try await controller.restore(QuoteID(1), version: 1, by: ada) == .restored(QuoteID(1), version: 3))
        #expect(store.historyReads == [1...2])
    }

    @Test func restoreMakesANewVersionOrSaysWhyNot() async throws {
        let (controller, store) = try makeController()
        #expect(try await controller.restore(QuoteID(1), version: 2, by: ada) == .alreadyCurrent(QuoteID(1)))
        #expect(try await controller.restore(QuoteID(1), version: 9, by: ada) == .notFound)
        #expect(try await controller.restore(QuoteID(4), version: 1, by: ada) == .notFound)
        #expect(try await controller.restore(QuoteID(1), version: 1, by: ada) == .restored(QuoteID(1), version: 3))
        #expect(store.dispatched.last == .restoreQuote(QuoteID(1), QuoteDraft(text: "One", author: "A"), fromVersion: 1, by: ada, at: now))
        #expect(store.state.quotes[QuoteID(1)]?.text == "One")
    }

    @Test func aStoreFailureIsThrownNotHidden() async throws {
        let (controller, _) = try makeController(failing: true)
        await #expect(throws: StoreError.self) { try await controller.add(QuoteDraft(text: "x", author: "y"), by: ada) }
        await #expect(throws: StoreError.self) { try await controller.delete(QuoteID(1), by: ada) }
        await #expect(throws: StoreError.self) { try await controller.history(of: QuoteID(1), viewer: nil).value() }
        await #expect(throws: StoreError.self) { try await controller.restore(QuoteID(1), version: 1, by: ada) }
    }
}

/// History pages already read are not read again until their quote changes.
@Suite struct QuoteHistoryReadTests {
    let at = Date(timeIntervalSince1970: 1_000)
    let ada = UserID(1)

    @Test func aPageIsReadOnceAVersionAndItsEditorsAreAsTheyAreNow() async throws {
        let store = try StateStoreDouble([
            .signUp(Username("ada")!, displayName: "Ada", at: at),
            .addQuote(QuoteDraft(text: "One", author: "A"), by: ada, at: at),
        ])
        let controller = QuoteController(store: store, now: { at })
        #expect(controller.history(of: QuoteID(1), viewer: ada).immediateValue == nil, "not read yet")
        let first = try await controller.history(of: QuoteID(1), viewer: ada).value()
        #expect(try await controller.history(of: QuoteID(1), viewer: nil).value() != first, "the viewer is not kept")
        #expect(controller.history(of: QuoteID(1), viewer: ada).immediateValue == first)
        #expect(store.historyReads == [1...1])
        // A rename shows at once, without a read.
        _ = try await store.dispatch(.changeDisplayName(ada, to: "Ada L.", at: at))
        guard case .showing(_, let renamed, _, _, _) = try await controller.history(of: QuoteID(1), viewer: ada).value() else {
            Issue.record("not showing")
            return
        }
        #expect(renamed.map(\.editor?.displayName) == ["Ada L."])
        #expect(store.historyReads == [1...1])
        // An edit is a new version: read again, and shown.
        _ = try await store.dispatch(.editQuote(QuoteID(1), QuoteDraft(text: "Two", author: "A"), baseVersion: 1, by: ada, at: at))
        #expect(controller.history(of: QuoteID(1), viewer: ada).immediateValue == nil)
        guard case .showing(_, let edited, _, _, _) = try await controller.history(of: QuoteID(1), viewer: ada).value() else {
            Issue.record("not showing")
            return
        }
        #expect(edited.map(\.version.text) == ["Two", "One"])
        #expect(store.historyReads == [1...1, 1...2])
        // A deleted quote is gone, whatever was read.
        _ = try await store.dispatch(.deleteQuote(QuoteID(1), by: ada, at: at))
        #expect(controller.history(of: QuoteID(1), viewer: ada).immediateValue == .notFound)
        #expect(try await controller.history(of: QuoteID(1), viewer: ada).value() == .notFound)
    }
}

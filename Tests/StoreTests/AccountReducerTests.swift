import Foundation
import Logging
import Store
import StoreSQLite
import TestSupport
import Testing

/// The reducer's account cases: pure, and refusing what the rules forbid.
@Suite struct AccountReducerTests {
    let date = Date(timeIntervalSince1970: 1_000)
    let hash = PasswordHash(encoded: "$y$j9T$salt$hash")

    func signUp(_ name: String, display: String = "Someone") -> AppAction {
        .signUp(Username(name)!, displayName: display, at: date)
    }

    @Test func signUpAssignsIdsAndTrimsTheDisplayName() throws {
        var state = AppState()
        #expect(try AppReducer.reduce(&state, signUp("ada", display: "  Ada  ")) == .userSignedUp(UserID(1)))
        #expect(try AppReducer.reduce(&state, signUp("bob")) == .userSignedUp(UserID(2)))
        #expect(state.user(named: Username("ada")!)?.displayName == "Ada")
        #expect(state.users[UserID(2)]?.joinedAt == date)
    }

    @Test func aTakenUsernameIsRefused() throws {
        var state = AppState()
        _ = try AppReducer.reduce(&state, signUp("ada"))
        let before = state
        #expect(throws: ActionRejection.usernameTaken(Username("ada")!)) { try AppReducer.reduce(&state, signUp("ADA")) }
        #expect(state == before)
    }

    @Test func displayNamesMustBe1To50CharactersAfterTrimming() throws {
        var state = AppState()
        #expect(throws: ActionRejection.invalidDisplayName(.empty)) { try AppReducer.reduce(&state, signUp("ada", display: " \t ")) }
        _ = try AppReducer.reduce(&state, signUp("ada", display: String(repeating: "é", count: 50)))
        #expect(throws: ActionRejection.invalidDisplayName(.tooLong(maximum: 50))) {
            try AppReducer.reduce(&state, .changeDisplayName(UserID(1), to: String(repeating: "x", count: 51), at: date))
        }
    }

    @Test func displayNamesRefuseControlAndDirectionCharacters() throws {
        var state = AppState()
        #expect(throws: ActionRejection.invalidDisplayName(.forbiddenCharacter("\u{0}"))) {
            try AppReducer.reduce(&state, signUp("ada", display: "Ada\u{0}"))
        }
        _ = try AppReducer.reduce(&state, signUp("ada"))
        let before = state
        #expect(throws: ActionRejection.invalidDisplayName(.forbiddenCharacter("\u{202E}"))) {
            try AppReducer.reduce(&state, .changeDisplayName(UserID(1), to: "Ada \u{202E}ecalevoL", at: date))
        }
        #expect(state == before)
    }

    @Test func profileChangesNeedAnExistingUserAndQuote() throws {
        var state = AppState()
        #expect(throws: ActionRejection.userNotFound(UserID(1))) { try AppReducer.reduce(&state, .setPhoto(UserID(1), nil, at: date)) }
        _ = try AppReducer.reduce(&state, signUp("ada"))
        #expect(throws: ActionRejection.quoteNotFound(QuoteID(1))) { try AppReducer.reduce(&state, .setFavourite(UserID(1), QuoteID(1), at: date)) }
        _ = try AppReducer.reduce(&state, .addQuote(QuoteDraft(text: "T", author: "A"), by: UserID(1), at: date))
        #expect(try AppReducer.reduce(&state, .setFavourite(UserID(1), QuoteID(1), at: date)) == .profileChanged(UserID(1)))
        let photo = PhotoReference(hash: String(repeating: "a", count: 64), mediaType: "image/png")
        _ = try AppReducer.reduce(&state, .setPhoto(UserID(1), photo, at: date))
        #expect(state.users[UserID(1)]?.favourite == QuoteID(1))
        #expect(state.users[UserID(1)]?.photo == photo)
    }

    @Test func usernamesFollowTheRuleAndLowerCaseOnlyASCII() {
        #expect(Username("Ada_Lovelace-1")?.rawValue == "ada_lovelace-1")
        for bad in ["ab", String(repeating: "a", count: 33), "a b", "ada!", "\u{212A}elvin", "adà", ""] { #expect(Username(bad) == nil) }
        #expect(Username(String(repeating: "a", count: 32)) != nil)
    }

    @Test func aPasswordHashNeverAppearsInADescription() throws {
        #expect("\(hash)" == "<password hash>")
        // A sign-up as the journal stores it carries no hash at all (account storage keeps it).
        #expect(try !JournalEntryCoding.encode([signUp("ada")])[0].contains("passwordHash"))
    }

    @Test func accountsSurviveASnapshotAndTheJournal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let actions = [signUp("ada"), .changeDisplayName(UserID(1), to: "Countess", at: date)]
        let store = try Store(journal: try SQLiteJournal(directory: directory.url), seed: actions, snapshotInterval: 1, logger: .discarding())
        await store.close()
        let reopened = try Store(journal: try SQLiteJournal(directory: directory.url), logger: .discarding())
        #expect(reopened.state.users[UserID(1)]?.displayName == "Countess")
        #expect(reopened.state.nextUserID == UserID(2))
        await reopened.close()
    }
}

import App
import Foundation
import Store
import Testing

/// A sign-up whose password hash was never kept (the process died, or account storage failed,
/// between its journal entry and its hash) leaves an account no one can sign in to. It is taken
/// back at once when keeping the hash fails, else by the next start-up; never an account that
/// is being made, that storage knows, or that the book refers to.
@Suite struct UnfinishedSignUpsTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)
    static let longAgo = now - 3_600
    static let justNow = now - 60

    static func signUp(_ name: String, at date: Date) -> AppAction {
        .signUp(Username(name)!, displayName: name, at: date)
    }

    /// ada: storage holds her; bob: cut short; cyd: joined a minute ago; dee: added a quote
    /// (which ada then edited); eve: last edited ada's quote; fay: chose a favourite; gil: has
    /// a photo.
    static func book() throws -> StateStoreDouble {
        let draft = QuoteDraft(text: "A quote", author: "Someone")
        return try StateStoreDouble([
            signUp("ada", at: longAgo), signUp("bob", at: longAgo), signUp("cyd", at: justNow), signUp("dee", at: longAgo),
            signUp("eve", at: longAgo), signUp("fay", at: longAgo), signUp("gil", at: longAgo),
            .addQuote(draft, by: UserID(4), at: longAgo), .addQuote(draft, by: UserID(1), at: longAgo),
            .editQuote(QuoteID(1), QuoteDraft(text: "Edited by ada", author: "Someone"), baseVersion: 1, by: UserID(1), at: longAgo),
            .editQuote(QuoteID(2), QuoteDraft(text: "Edited by eve", author: "Someone"), baseVersion: 1, by: UserID(5), at: longAgo),
            .setFavourite(UserID(6), QuoteID(1), at: longAgo),
            .setPhoto(UserID(7), PhotoReference(hash: "ab12", mediaType: "image/webp"), at: longAgo),
        ])
    }

    @Test func onlyAnOldAccountThatStorageAndTheBookKnowNothingOfIsCutShort() throws {
        let state = try Self.book().state
        let cutoff = Self.now - UnfinishedSignUps.grace
        #expect(UnfinishedSignUps.find(in: state, stored: [UserID(1)], joinedBefore: cutoff) == .cutShort([UserID(2)]))
        #expect(UnfinishedSignUps.find(in: state, stored: [UserID(1), UserID(2)], joinedBefore: cutoff) == .cutShort([]))
        #expect(
            UnfinishedSignUps.find(in: state, stored: [UserID(1)], joinedBefore: Self.now) == .cutShort([UserID(2), UserID(3)]),
            "cyd counts once her sign-up is older than the cutoff")
    }

    @Test func storageThatHoldsNoAccountWhileTheBookHasSeveralIsNotRepaired() throws {
        let state = try Self.book().state
        #expect(UnfinishedSignUps.find(in: state, stored: [], joinedBefore: Self.now) == .storageEmpty(accounts: 7))
        // The book's very first sign-up, cut short, is one account: it is repaired.
        let first = try StateStoreDouble([Self.signUp("ada", at: Self.longAgo)]).state
        #expect(UnfinishedSignUps.find(in: first, stored: [], joinedBefore: Self.now) == .cutShort([UserID(1)]))
    }

    @Test func moreAccountsThanACrashLeavesAreNotRepaired() throws {
        let count = UnfinishedSignUps.mostAtOnce + 1
        let names = ["ada"] + (1...count).map { "person\($0)" }
        let state = try StateStoreDouble(names.map { Self.signUp($0, at: Self.longAgo) }).state
        #expect(UnfinishedSignUps.find(in: state, stored: [UserID(1)], joinedBefore: Self.now) == .tooMany(count))
        let fewer = try StateStoreDouble(names.dropLast().map { Self.signUp($0, at: Self.longAgo) }).state
        #expect(UnfinishedSignUps.find(in: fewer, stored: [UserID(1)], joinedBefore: Self.now) == .cutShort((2...count).map { UserID($0) }))
    }

    @Test func removingTakesTheAccountOutOfTheBookAndFreesItsUsername() async throws {
        let store = try Self.book()
        let storage = AccountStorageDouble()
        try await storage.setPasswordHash(PasswordHash(encoded: "hash"), of: UserID(1))
        let (finding, failure) = try await UnfinishedSignUps.remove(from: store, storage: storage, now: Self.now)
        #expect(finding == .cutShort([UserID(2)]))
        #expect(failure == nil)
        #expect(store.state.user(named: Username("bob")!) == nil)
        #expect(store.state.users.count == 6)
        #expect(store.dispatched == [.deleteAccount(UserID(2), at: Self.now)])
        #expect(try await store.dispatch(Self.signUp("bob", at: Self.now)) == .success(.userSignedUp(UserID(8))))
    }

    @Test func aHashThatCannotBeKeptTakesTheSignUpBack() async throws {
        let store = try StateStoreDouble([Self.signUp("ada", at: Self.now), Self.signUp("bob", at: Self.now)])
        try await UnfinishedSignUps.finish(UserID(1), in: store, at: Self.now) {}
        await #expect(throws: StoreError.self) {
            try await UnfinishedSignUps.finish(UserID(2), in: store, at: Self.now) {
                throw StoreError.accountStorageClosed(operation: "test")
            }
        }
        #expect(store.state.users.keys.map(\.rawValue) == [1], "bob's sign-up taken back, ada's kept")
    }

    @Test func aSignUpWhoseHashStorageRefusesLeavesTheUsernameFree() async throws {
        let storage = AccountStorageDouble()
        await storage.setRefusesPasswords(true)
        let (controller, store, _) = try AccountsControllerTests().make(storage: storage)
        let form = SignUpForm(username: "ada", displayName: "Ada", password: "long enough", passwordConfirmation: "long enough")
        await #expect(throws: StoreError.self) { try await controller.signUp(form, client: nil) }
        #expect(store.state.users.isEmpty)
        await storage.setRefusesPasswords(false)
        guard case .signedUp(let user, _, _) = try await controller.signUp(form, client: nil) else {
            Issue.record("the second try did not sign up")
            return
        }
        #expect(user.username.rawValue == "ada")
        #expect(try await controller.passwordHash(of: user) != nil)
    }
}

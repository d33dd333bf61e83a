import App
import Foundation
import Store
import Testing

/// `quotebook user add` holds names and passwords to sign-up's rules, refused characters included,
/// and never hashes a password it refuses.
@Suite struct AddUserCommandTests {
    func run(
        _ username: String, displayName: String? = nil, password: String,
        keepHash: (PasswordHash, UserID) async throws -> Void = { _, _ in }
    ) async throws -> (AddUserCommand.Outcome, StateStoreDouble) {
        let store = try StateStoreDouble()
        let outcome = await AddUserCommand.run(
            username: username, displayName: displayName, password: password, store: store, now: .distantPast,
            hash: { password in
                // crypt cannot take a NUL: a refused password must never get this far.
                guard !password.unicodeScalars.contains("\u{0}") else { throw PasswordCryptError.passwordContainsNUL }
                return "$y$test"
            }, keepHash: keepHash)
        return (outcome, store)
    }

    @Test func aPasswordWithARefusedCharacterIsStatus65NamingIt() async throws {
        let (outcome, store) = try await run("ada", password: "aaaaaaaa\u{0}")
        #expect(outcome.exitCode == 65)
        #expect(outcome.message.contains("U+0000"))
        #expect(!outcome.message.contains("aaaaaaaa"))
        #expect(store.dispatched.isEmpty)
    }

    @Test func aDisplayNameWithARefusedCharacterIsStatus65NamingIt() async throws {
        let (outcome, store) = try await run("ada", displayName: "Ada \u{202E}ecalevoL", password: "long enough")
        #expect(outcome.exitCode == 65)
        #expect(outcome.message == "invalid display name: it holds the control character U+202E, which no name may")
        #expect(store.dispatched.isEmpty)
    }

    @Test func anAccountWhoseHashCannotBeKeptIsTakenBack() async throws {
        let (outcome, store) = try await run("ada", password: "long enough") { _, _ in
            throw StoreError.accountStorageClosed(operation: "set password hash")
        }
        #expect(outcome.exitCode == 1)
        #expect(outcome.message.hasPrefix("could not create the account"))
        #expect(store.state.users.isEmpty, "no account left that no one can sign in to")
    }

    @Test func anOrdinaryAccountIsCreated() async throws {
        let (outcome, store) = try await run("ada", password: "long enough")
        #expect(outcome.exitCode == 0)
        #expect(store.dispatched.count == 1)
    }
}

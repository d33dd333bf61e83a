import App
import Foundation
import Store
import Testing

/// `quotebook user add` holds names and passwords to sign-up's rules, refused characters included,
/// and never hashes a password it refuses.
@Suite struct AddUserCommandTests {
    func run(_ username: String, displayName: String? = nil, password: String) async throws -> (AddUserCommand.Outcome, StateStoreDouble) {
        let store = try StateStoreDouble()
        let outcome = await AddUserCommand.run(
            username: username, displayName: displayName, password: password, store: store, now: .distantPast,
            hash: { password in
                // crypt cannot take a NUL: a refused password must never get this far.
                guard !password.unicodeScalars.contains("\u{0}") else { throw PasswordCryptError.passwordContainsNUL }
                return "$y$test"
            }, keepHash: { _, _ in })
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

    @Test func anOrdinaryAccountIsCreated() async throws {
        let (outcome, store) = try await run("ada", password: "long enough")
        #expect(outcome.exitCode == 0)
        #expect(store.dispatched.count == 1)
    }
}

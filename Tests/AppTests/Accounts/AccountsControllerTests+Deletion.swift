import App
import Foundation
import Store
import TestSupport
import Testing

extension AccountsControllerTests {
    /// The account deleted from another browser while the change was hashing (journaled, its
    /// storage not yet erased): the change's entry is refused, and the hash and session it had
    /// just written are erased again rather than left for an account that no longer exists, and
    /// the person is told their account is gone (signed out), not shown an error.
    @Test func aPasswordChangeRacingTheAccountsDeletionLeavesNothingStored() async throws {
        let storage = AccountStorageDouble()
        let (controller, store, _) = try make(storage: storage)
        guard case let .signedUp(user, session, _) = try await controller.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        _ = try await store.dispatch(.deleteAccount(user.id, at: clock.now))
        let change = PasswordChangeForm(currentPassword: "long enough", password: "another one", passwordConfirmation: "another one")
        #expect(try await controller.changePassword(change, of: user, current: session.record, client: nil) == .overtaken)
        #expect(try await controller.passwordHash(of: user) == nil)
        #expect(await storage.sessions(of: user.id).isEmpty)
    }
}

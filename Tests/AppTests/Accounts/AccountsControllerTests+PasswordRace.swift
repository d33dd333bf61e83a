import App
import Basics
import Foundation
import Store
import TestSupport
import Testing

/// No session outlives its password (SPEC.md "Sessions and security"): a sign-in with the old
/// password whose check began before a change, or before the account's deletion, and ends after
/// it, starts no session. The attacker's check is held at a gate while the owner's change runs
/// to the end on a pool of its own; then the gate opens.
extension AccountsControllerTests {
    /// Two controllers over one store and one account storage, as two browsers (or two
    /// instances) see them: the owner's with plain yescrypt, the attacker's with checks held at
    /// `gate` until it opens. Each has a pool of its own, so the held check blocks only its own.
    func owner(andAttackerHeldAt gate: CountingPasswordCrypt) throws -> (AccountsController, AccountsController, AccountStorageDouble) {
        let store = try StateStoreDouble()
        let storage = AccountStorageDouble()
        let failures = InMemorySignInFailures()
        let clock = self.clock
        func controller(_ crypt: PasswordCryptClient, _ name: String) -> AccountsController {
            AccountsController(
                store: store, hasher: PasswordHasher(pool: BlockingThreadPool(name: name, threadCount: 1, queueLimit: 4), crypt: crypt),
                sessions: SessionKeeper(storage: storage), throttle: SignInThrottle(storage: failures),
                addressLimits: AddressLimits(storage: failures, limits: AccountLimits()), now: { clock.now })
        }
        return (controller(.yescrypt, "owner"), controller(gate.client, "attacker"), storage)
    }

    /// Starts the attacker's sign-in with `password` and returns once its check waits at the gate.
    func heldSignIn(
        _ attacker: AccountsController, _ password: String, at gate: CountingPasswordCrypt
    ) async throws -> Task<SignInState, any Error> {
        let signIn = Task { try await attacker.signIn(username: "ada", password: password, returnTo: nil, client: "192.0.2.66") }
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while gate.heldCount == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(gate.heldCount == 1, "the attacker's check is under way")
        return signIn
    }

    @Test func aSignInCheckedBeforeAPasswordChangeStartsNoSessionAfterIt() async throws {
        let gate = CountingPasswordCrypt(holdingChecks: true)
        let (owner, attacker, storage) = try owner(andAttackerHeldAt: gate)
        guard case let .signedUp(ada, session) = try await owner.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        let signIn = try await heldSignIn(attacker, "long enough", at: gate)

        let change = PasswordChangeForm(currentPassword: "long enough", password: "another one", passwordConfirmation: "another one")
        guard case .changed(_, let replacement) = try await owner.changePassword(change, of: ada, current: session.record, client: nil)
        else {
            Issue.record("the owner's change did not go through")
            return
        }
        gate.open()
        #expect(try await signIn.value == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(await storage.sessions(of: ada.id).map(\.id) == [replacement.record.id], "only the owner's new session")

        // The same password checked after the change is simply wrong; the new one signs in.
        #expect(try await attacker.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil)
            == .showing(.rejected(username: "ada", returnTo: nil)))
        guard case .signedIn = try await attacker.signIn(username: "ada", password: "another one", returnTo: nil, client: nil) else {
            Issue.record("the new password does not sign in")
            return
        }
    }

    @Test func aSignInCheckedBeforeTheAccountsDeletionStartsNoSessionAfterIt() async throws {
        let gate = CountingPasswordCrypt(holdingChecks: true)
        let (owner, attacker, storage) = try owner(andAttackerHeldAt: gate)
        guard case let .signedUp(ada, _) = try await owner.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        let signIn = try await heldSignIn(attacker, "long enough", at: gate)
        #expect(try await owner.deleteAccount(of: ada, password: "long enough", client: nil) == .deleted(photo: nil))
        gate.open()
        #expect(try await signIn.value == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(await storage.sessions(of: ada.id).isEmpty)
    }

    /// Two changes from two browsers whose checks overlap: the one whose hash is kept last holds,
    /// and every session but its browser's new one ends, the other change's new one included.
    @Test func ofTwoOverlappingChangesTheLastKeptHoldsAlone() async throws {
        let gate = CountingPasswordCrypt(holdingChecks: true)
        let (owner, attacker, storage) = try owner(andAttackerHeldAt: gate)
        guard case let .signedUp(ada, first) = try await owner.signUp(form("ada"), client: nil),
            case .signedIn(_, let second, _) = try await owner.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil)
        else {
            Issue.record("not signed in twice")
            return
        }
        // The first browser's change waits at the gate in its check of the current password.
        let slow = Task {
            try await attacker.changePassword(
                PasswordChangeForm(currentPassword: "long enough", password: "slower one", passwordConfirmation: "slower one"),
                of: ada, current: first.record, client: nil)
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while gate.heldCount == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(gate.heldCount == 1)
        let fast = PasswordChangeForm(currentPassword: "long enough", password: "faster one", passwordConfirmation: "faster one")
        guard case .changed(_, let kept) = try await owner.changePassword(fast, of: ada, current: second.record, client: nil) else {
            Issue.record("the second browser's change did not go through")
            return
        }
        gate.open()
        // The slow change's check passed (it began before the fast change), so its hash is kept
        // after the fast one's and it starts a session: the later hash wins, and the fast
        // change's session ends with the rest.
        let outcome = try await slow.value
        guard case .changed(_, let last) = outcome else {
            Issue.record("the slower change: \(outcome)")
            return
        }
        #expect(await storage.sessions(of: ada.id).map(\.id) == [last.record.id])
        #expect(await storage.sessions(of: ada.id).contains { $0.id == kept.record.id } == false)
    }

    /// Another browser's change lands between this change's hash and its new session: this
    /// change's session is refused, so it ends every session and signs its browser out.
    @Test func aChangeOvertakenByAnotherChangeSignsItsBrowserOut() async throws {
        let storage = AccountStorageDouble()
        let (controller, _, _) = try make(storage: storage)
        guard case let .signedUp(ada, session) = try await controller.signUp(form("ada"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        await storage.setLaterChange(PasswordHash(encoded: "$y$someone else's"))
        let change = PasswordChangeForm(currentPassword: "long enough", password: "another one", passwordConfirmation: "another one")
        #expect(try await controller.changePassword(change, of: ada, current: session.record, client: nil) == .overtaken)
        #expect(await storage.sessions(of: ada.id).isEmpty)
    }
}

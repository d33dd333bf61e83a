import App
import Foundation
import Store
import Testing

/// Sign-up and sign-in states, on a store double, a real hashing pool and real yescrypt.
@Suite struct AccountsControllerTests {
    let clock = TestClock()

    func make(_ actions: [AppAction] = [], queueLimit: Int = 16) throws -> (AccountsController, StateStoreDouble, SignInThrottle) {
        let store = try StateStoreDouble(actions)
        let throttle = SignInThrottle()
        let clock = self.clock
        let controller = AccountsController(
            store: store, hasher: PasswordHasher(pool: BlockingThreadPool(name: "test", threadCount: 1, queueLimit: queueLimit)),
            sessions: SessionKeeper(storage: AccountStorageDouble()), throttle: throttle, now: { clock.now })
        return (controller, store, throttle)
    }

    func form(_ username: String, _ name: String = "Ada", _ password: String = "long enough", _ again: String? = nil) -> SignUpForm {
        SignUpForm(username: username, displayName: name, password: password, passwordConfirmation: again ?? password)
    }

    @Test func signingUpCreatesTheAccountWithAHashAndASession() async throws {
        let (controller, store, _) = try make()
        guard case let .signedUp(user, session) = try await controller.signUp(form("Ada_Lovelace")) else {
            Issue.record("not signed up")
            return
        }
        #expect(user.username.rawValue == "ada_lovelace")
        #expect(user.passwordHash.encoded.hasPrefix("$y$"))
        #expect(!user.passwordHash.encoded.contains("long enough"))
        #expect(session.record.userID == user.id)
        #expect(store.state.users.count == 1)
    }

    @Test func everyRuleIsReportedBesideItsFieldWithoutThePasswords() async throws {
        let (controller, store, _) = try make([AccountFixtures.signUp("ada")])
        let state = try await controller.signUp(form("ADA", "  ", "short", "other"))
        #expect(state == .showing(.editing(form("ADA", "  ", "", ""), problems: [.username: .usernameTaken, .displayName: .displayName(.empty), .password: .passwordTooShort])))
        #expect(try await controller.signUp(form("a b", "Ada", "long enough", "long enougH")) == .showing(.editing(form("a b", "Ada", "", ""), problems: [.username: .invalidUsername, .passwordConfirmation: .confirmationMismatch])))
        #expect(store.dispatched.isEmpty)
    }

    @Test func refusedCharactersInTheUsernameAndPasswordAreReportedBesideThem() async throws {
        let (controller, store, _) = try make()
        let state = try await controller.signUp(form("ada\u{0}", "Ada", "long enough\u{0}"))
        #expect(
            state
                == .showing(
                    .editing(
                        form("ada\u{0}", "Ada", "", ""),
                        problems: [.username: .forbiddenCharacter("\u{0}"), .password: .forbiddenCharacter("\u{0}")])))
        let bidi = try await controller.signUp(form("ada", "Ada\u{202E}", "\u{202E}long enough", "other"))
        let rlo: Unicode.Scalar = "\u{202E}"
        #expect(
            bidi
                == .showing(
                    .editing(
                        form("ada", "Ada\u{202E}", "", ""),
                        problems: [.displayName: .displayName(.forbiddenCharacter(rlo)), .password: .forbiddenCharacter(rlo)])))
        #expect(store.dispatched.isEmpty)
    }

    @Test func aUsernameWithARefusedCharacterIsAnsweredBeforeTheThrottleCounts() async throws {
        let (controller, _, _) = try make()
        // More tries than the throttle allows: none is counted, so none is throttled.
        for _ in 0..<7 {
            let state = try await controller.signIn(username: "ada\u{7}", password: "long enough", returnTo: nil)
            #expect(state == .showing(.forbiddenCharacter("\u{7}", username: "ada\u{7}", returnTo: nil)))
        }
    }

    @Test func aPasswordWithANULFailsAsAWrongPassword() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"))
        let state = try await controller.signIn(username: "ada", password: "long enough\u{0}", returnTo: nil)
        #expect(state == .showing(.rejected(username: "ada", returnTo: nil)))
    }

    @Test func signingInWithTheRightPasswordStartsASession() async throws {
        let (controller, store, _) = try make()
        _ = try await controller.signUp(form("ada"))
        guard case let .signedIn(user, _, returnTo) = try await controller.signIn(username: "ADA", password: "long enough", returnTo: ReturnPath("/profile")) else {
            Issue.record("not signed in")
            return
        }
        #expect(user.id == store.state.users.keys.first)
        #expect(returnTo == ReturnPath("/profile"))
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameAnswer() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"))
        #expect(try await controller.signIn(username: "ada", password: "wrong password", returnTo: nil) == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(try await controller.signIn(username: "nobody", password: "long enough", returnTo: nil) == .showing(.rejected(username: "nobody", returnTo: nil)))
        #expect(try await controller.signIn(username: "!!", password: "x", returnTo: nil) == .showing(.rejected(username: "!!", returnTo: nil)))
    }

    @Test func fiveFailuresLockTheUsernameEvenForTheRightPassword() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"))
        for _ in 0..<5 { _ = try await controller.signIn(username: "ada", password: "wrong password", returnTo: nil) }
        #expect(
            try await controller.signIn(username: "ada", password: "long enough", returnTo: nil)
                == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)))
        clock.advance(by: 61)
        guard case .signedIn = try await controller.signIn(username: "ada", password: "long enough", returnTo: nil) else {
            Issue.record("still locked after a minute")
            return
        }
    }
}

import App
import Basics
import Foundation
import Store
import TestSupport
import Testing

/// Sign-up and sign-in states, on a store double, a real hashing pool and real yescrypt.
@Suite struct AccountsControllerTests {
    let clock = TestClock()

    func make(
        _ actions: [AppAction] = [], queueLimit: Int = 16, limits: AccountLimits = AccountLimits(),
        crypt: PasswordCryptClient = .yescrypt, pool: BlockingThreadPool? = nil, storage: AccountStorageDouble = AccountStorageDouble()
    ) throws -> (AccountsController, StateStoreDouble, SignInThrottle) {
        let store = try StateStoreDouble(actions)
        let failures = InMemorySignInFailures()
        let throttle = SignInThrottle(storage: failures)
        let clock = self.clock
        let pool =
            pool ?? BlockingThreadPool(name: "test", threadCount: 1, queueLimit: queueLimit, perOwnerLimit: limits.maxHashesPerClient)
        let controller = AccountsController(
            store: store, hasher: PasswordHasher(pool: pool, crypt: crypt),
            sessions: SessionKeeper(storage: storage), throttle: throttle,
            addressLimits: AddressLimits(storage: failures, limits: limits), now: { clock.now })
        return (controller, store, throttle)
    }

    func form(_ username: String, _ name: String = "Ada", _ password: String = "long enough", _ again: String? = nil) -> SignUpForm {
        SignUpForm(username: username, displayName: name, password: password, passwordConfirmation: again ?? password)
    }

    @Test func signingUpCreatesTheAccountWithAHashAndASession() async throws {
        let (controller, store, _) = try make()
        guard case let .signedUp(user, session, _) = try await controller.signUp(form("Ada_Lovelace"), client: nil) else {
            Issue.record("not signed up")
            return
        }
        #expect(user.username.rawValue == "ada_lovelace")
        let hash = try #require(try await controller.passwordHash(of: user))
        #expect(hash.hasPrefix("$y$"))
        #expect(!hash.contains("long enough"))
        #expect(session.record.userID == user.id)
        #expect(store.state.users.count == 1)
    }

    @Test func everyRuleIsReportedBesideItsFieldWithoutThePasswords() async throws {
        let (controller, store, _) = try make([AccountFixtures.signUp("ada")])
        let state = try await controller.signUp(form("ADA", "  ", "short", "other"), client: nil)
        #expect(
            state
                == .showing(
                    .editing(
                        form("ADA", "  ", "", ""),
                        problems: [.username: .usernameTaken, .displayName: .displayName(.empty), .password: .passwordTooShort])))
        #expect(
            try await controller.signUp(form("a b", "Ada", "long enough", "long enougH"), client: nil)
                == .showing(
                    .editing(
                        form("a b", "Ada", "", ""), problems: [.username: .invalidUsername, .passwordConfirmation: .confirmationMismatch])))
        #expect(store.dispatched.isEmpty)
    }

    @Test func refusedCharactersInTheUsernameAndPasswordAreReportedBesideThem() async throws {
        let (controller, store, _) = try make()
        let state = try await controller.signUp(form("ada\u{0}", "Ada", "long enough\u{0}"), client: nil)
        #expect(
            state
                == .showing(
                    .editing(
                        form("ada\u{0}", "Ada", "", ""),
                        problems: [.username: .forbiddenCharacter("\u{0}"), .password: .forbiddenCharacter("\u{0}")])))
        let bidi = try await controller.signUp(form("ada", "Ada\u{202E}", "\u{202E}long enough", "other"), client: nil)
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
            let state = try await controller.signIn(username: "ada\u{7}", password: "long enough", returnTo: nil, client: nil)
            #expect(state == .showing(.forbiddenCharacter("\u{7}", username: "ada\u{7}", returnTo: nil)))
        }
    }

    @Test func aPasswordWithANULFailsAsAWrongPassword() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"), client: nil)
        let state = try await controller.signIn(username: "ada", password: "long enough\u{0}", returnTo: nil, client: nil)
        #expect(state == .showing(.rejected(username: "ada", returnTo: nil)))
    }

    @Test func signingInWithTheRightPasswordStartsASession() async throws {
        let (controller, store, _) = try make()
        _ = try await controller.signUp(form("ada"), client: nil)
        guard
            case let .signedIn(user, _, returnTo) = try await controller.signIn(
                username: "ADA", password: "long enough", returnTo: ReturnPath("/profile"), client: nil)
        else {
            Issue.record("not signed in")
            return
        }
        #expect(user.id == store.state.users.keys.first)
        #expect(returnTo == ReturnPath("/profile"))
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameAnswer() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"), client: nil)
        #expect(
            try await controller.signIn(username: "ada", password: "wrong password", returnTo: nil, client: nil)
                == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(
            try await controller.signIn(username: "nobody", password: "long enough", returnTo: nil, client: nil)
                == .showing(.rejected(username: "nobody", returnTo: nil)))
        #expect(
            try await controller.signIn(username: "!!", password: "x", returnTo: nil, client: nil)
                == .showing(.rejected(username: "!!", returnTo: nil)))
    }

    @Test func fiveFailuresLockTheUsernameEvenForTheRightPassword() async throws {
        let (controller, _, _) = try make()
        _ = try await controller.signUp(form("ada"), client: nil)
        for _ in 0..<5 { _ = try await controller.signIn(username: "ada", password: "wrong password", returnTo: nil, client: nil) }
        #expect(
            try await controller.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil)
                == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)))
        clock.advance(by: 61)
        guard case .signedIn = try await controller.signIn(username: "ada", password: "long enough", returnTo: nil, client: nil) else {
            Issue.record("still locked after a minute")
            return
        }
    }

    func limits(signIns: Int = 20, signUps: Int = 10, hashes: Int = 2) -> AccountLimits {
        var limits = AccountLimits()
        limits.signInsPerClient = signIns
        limits.signUpsPerClient = signUps
        limits.maxHashesPerClient = hashes
        return limits
    }

    func signIn(
        _ controller: AccountsController, _ username: String, _ password: String, from client: String?
    ) async throws -> SignInState {
        try await controller.signIn(username: username, password: password, returnTo: nil, client: client)
    }

    @Test func anAddressGetsItsShareOfFailedSignInsThenWaitsForTheWindow() async throws {
        let (controller, _, _) = try make(limits: limits(signIns: 3))
        _ = try await controller.signUp(form("ada"), client: nil)
        for name in ["ada", "bob", "eve"] {
            #expect(
                try await signIn(controller, name, "wrong password", from: "192.0.2.1")
                    == .showing(.rejected(username: name, returnTo: nil)))
        }
        clock.advance(by: 100)
        #expect(
            try await signIn(controller, "ada", "long enough", from: "192.0.2.1")
                == .showing(.limited(username: "ada", returnTo: nil, .allowanceSpent(retryAfter: 500))))
        guard case .signedIn = try await signIn(controller, "ada", "long enough", from: "192.0.2.2") else {
            Issue.record("another address was refused")
            return
        }
        clock.advance(by: 500)
        guard case .signedIn = try await signIn(controller, "ada", "long enough", from: "192.0.2.1") else {
            Issue.record("still refused once the window passed")
            return
        }
    }

    @Test func signInsThatSucceedDoNotCountAgainstTheAddress() async throws {
        let (controller, _, _) = try make(limits: limits(signIns: 2))
        _ = try await controller.signUp(form("ada"), client: nil)
        for _ in 0..<3 {
            guard case .signedIn = try await signIn(controller, "ada", "long enough", from: "192.0.2.1") else {
                Issue.record("a right password was refused")
                return
            }
        }
        for _ in 0..<2 {
            #expect(
                try await signIn(controller, "bob", "wrong password", from: "192.0.2.1")
                    == .showing(.rejected(username: "bob", returnTo: nil)))
        }
        #expect(
            try await signIn(controller, "ada", "long enough", from: "192.0.2.1")
                == .showing(.limited(username: "ada", returnTo: nil, .allowanceSpent(retryAfter: 600))))
    }

    /// Tries the username's lock refuses unchecked still count against the address (issue 29):
    /// keeping someone locked out costs the attacker its own allowance.
    @Test func triesTheUsernameLimitRefusesStillCountAgainstTheAddress() async throws {
        let (controller, _, _) = try make(limits: limits(signIns: 8))
        for _ in 0..<5 { _ = try await signIn(controller, "ada", "wrong password", from: "192.0.2.1") }
        for _ in 0..<3 {
            #expect(
                try await signIn(controller, "ada", "wrong password", from: "192.0.2.1")
                    == .showing(.throttled(username: "ada", returnTo: nil, retryAfter: 60)))
        }
        #expect(
            try await signIn(controller, "bob", "wrong password", from: "192.0.2.1")
                == .showing(.limited(username: "bob", returnTo: nil, .allowanceSpent(retryAfter: 600))))
        #expect(
            try await signIn(controller, "bob", "wrong password", from: "192.0.2.2") == .showing(.rejected(username: "bob", returnTo: nil)),
            "another address still has its own")
    }

    @Test func anAddressGetsItsShareOfNewAccounts() async throws {
        let (controller, store, _) = try make(limits: limits(signUps: 2))
        for name in ["ada", "bob"] {
            guard case .signedUp = try await controller.signUp(form(name), client: "192.0.2.1") else {
                Issue.record("\(name) was not signed up")
                return
            }
        }
        #expect(
            try await controller.signUp(form("eve", "Eve"), client: "192.0.2.1")
                == .showing(.limited(form("eve", "Eve", "", ""), .allowanceSpent(retryAfter: 600))))
        // A form with mistakes says so first; it costs no hash and does not count.
        #expect(
            try await controller.signUp(form("e v"), client: "192.0.2.1")
                == .showing(.editing(form("e v", "Ada", "", ""), problems: [.username: .invalidUsername])))
        guard case .signedUp = try await controller.signUp(form("eve"), client: "192.0.2.2") else {
            Issue.record("another address was refused")
            return
        }
        #expect(store.state.users.count == 3)
    }

    @Test func aRequestWhoseAddressIsUnknownIsNotLimitedByAddress() async throws {
        let (controller, _, _) = try make(limits: limits(signIns: 1, signUps: 1))
        for name in ["ada", "bob"] {
            #expect(try await signIn(controller, name, "wrong password", from: nil) == .showing(.rejected(username: name, returnTo: nil)))
            guard case .signedUp = try await controller.signUp(form(name), client: nil) else {
                Issue.record("\(name) was not signed up")
                return
            }
        }
    }

    /// Past its share of the hashing pool an address is refused at once, unchecked, and the try
    /// still counts against the username and the address: a burst ends at the limits whether its
    /// tries were checked or not.
    @Test func aTryPastTheAddresssShareOfThePoolIsRefusedUncheckedAndCounts() async throws {
        let crypt = CountingPasswordCrypt(holdingChecks: true)
        defer { crypt.open() }
        let (controller, _, throttle) = try make(limits: limits(signIns: 3, hashes: 1), crypt: crypt.client)
        async let first = signIn(controller, "ada", "wrong password", from: "192.0.2.1")
        #expect(try await eventually { crypt.heldCount == 1 })
        #expect(
            try await signIn(controller, "bob", "wrong password", from: "192.0.2.1")
                == .showing(.limited(username: "bob", returnTo: nil, .tooManyAtOnce)))
        #expect(try allowed(await throttle.reserve("bob", now: clock.now)).number == 2, "bob's refused try counts")
        crypt.open()
        #expect(try await first == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(
            try await signIn(controller, "cyd", "wrong password", from: "192.0.2.1") == .showing(.rejected(username: "cyd", returnTo: nil)))
        #expect(
            try await signIn(controller, "dan", "wrong password", from: "192.0.2.1")
                == .showing(.limited(username: "dan", returnTo: nil, .allowanceSpent(retryAfter: 600))))
        #expect(crypt.checkCount == 2)
    }

    /// When the pool is full (the server's fault, not the client's), the try is given back.
    @Test func aTryTheFullPoolRefusesIsGivenBack() async throws {
        let crypt = CountingPasswordCrypt(holdingChecks: true)
        defer { crypt.open() }
        let pool = BlockingThreadPool(name: "full", threadCount: 1, queueLimit: 1)
        let (controller, _, throttle) = try make(limits: limits(signIns: 1), crypt: crypt.client, pool: pool)
        // One check running (held), one waiting: the pool is full.
        async let first = signIn(controller, "ada", "wrong password", from: nil)
        #expect(try await eventually { crypt.heldCount == 1 })
        async let second = signIn(controller, "eve", "wrong password", from: nil)
        #expect(try await eventually { pool.queuedJobCount == 1 })
        #expect(try await signIn(controller, "bob", "wrong password", from: "192.0.2.1") == .showing(.busy(username: "bob", returnTo: nil)))
        #expect(try allowed(await throttle.reserve("bob", now: clock.now)).number == 1, "bob's try was given back")
        crypt.open()
        #expect(try await first == .showing(.rejected(username: "ada", returnTo: nil)))
        #expect(try await second == .showing(.rejected(username: "eve", returnTo: nil)))
        #expect(
            try await signIn(controller, "cyd", "wrong password", from: "192.0.2.1") == .showing(.rejected(username: "cyd", returnTo: nil)),
            "and so was the address's")
    }
}

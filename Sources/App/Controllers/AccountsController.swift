import Basics
package import Foundation
import Mail
package import Store

/// The logic of signing up and signing in: checks the rules, hashes and verifies passwords on
/// the hashing pool, throttles guessing per username and tries per client address, and starts
/// sessions. No HTTP, no HTML: the client's address comes in as text (nil: unknown, not limited).
package struct AccountsController: Sendable {
    /// Shortest password accepted at sign-up (SPEC.md: at least 8 characters).
    package static let minimumPasswordLength = 8

    let store: any StateStore
    let hasher: PasswordHasher
    let sessions: SessionKeeper
    /// The username's lock, which everyone but a browser known to the account meets.
    let throttle: SignInThrottle
    /// A known browser's own limit, by its nonce (``KnownDeviceCookie``).
    let deviceThrottle: SignInThrottle
    /// A signed-in person's own password checks, by account.
    let ownThrottle: SignInThrottle
    let addressLimits: AddressLimits
    let now: @Sendable () -> Date

    package init(
        store: any StateStore, hasher: PasswordHasher, sessions: SessionKeeper, throttle: SignInThrottle,
        addressLimits: AddressLimits, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.hasher = hasher
        self.sessions = sessions
        self.throttle = throttle
        deviceThrottle = throttle.sharing(.knownDevice)
        ownThrottle = throttle.sharing(.ownPassword)
        self.addressLimits = addressLimits
        self.now = now
    }

    /// Creates the account `form` describes and signs it in, or says what to correct. A sign-up
    /// that passes the form's rules counts towards its `client`'s limit before its password is
    /// hashed, and stops counting if no account comes of it, unless the client's own burst was
    /// past its share of the hashing pool.
    /// `userAgent`: the browser's, kept with the session for the sessions page.
    package func signUp(_ form: SignUpForm, client: String?, userAgent: String? = nil) async throws -> SignUpState {
        var problems: [SignUpField: SignUpProblem] = [:]
        let username = Username(form.username)
        if let scalar = TypedText.firstForbiddenScalar(in: form.username, layout: .singleLine) {
            problems[.username] = .forbiddenCharacter(scalar)
        } else if username == nil {
            problems[.username] = .invalidUsername
        } else if let username, store.state.user(named: username) != nil {
            problems[.username] = .usernameTaken
        }
        if let problem = User.problem(withDisplayName: form.displayName) { problems[.displayName] = .displayName(problem) }
        if let problem = Self.problem(withPassword: form.password) {
            problems[.password] = problem
        } else if form.password != form.passwordConfirmation {
            problems[.passwordConfirmation] = .confirmationMismatch
        }
        let trimmedEmail = form.email.trimmingCharacters(in: .whitespaces)
        var email: MailAddress?
        if !trimmedEmail.isEmpty {
            switch MailAddress.check(trimmedEmail) {
            case .success(let address): email = address
            case .failure(let problem): problems[.email] = .invalidEmail(problem)
            }
        }
        let typed = Self.withoutPasswords(form)
        guard problems.isEmpty, let username else { return .showing(.editing(typed, problems: problems)) }

        var addressAttempt: AttemptLimit.Attempt?
        if let client {
            switch try await addressLimits.signUps.reserve(client, now: now()) {
            case .allowed(let attempt): addressAttempt = attempt
            case .refused(let seconds): return .showing(.limited(typed, .allowanceSpent(retryAfter: seconds)))
            }
        }
        let hash: String
        do {
            hash = try await hasher.hash(form.password, for: client)
        } catch let refusal as BlockingThreadPool.Overloaded {
            // Past its share of the pool the client's own burst was refused: the try counts.
            if refusal == .ownerAtLimit { return .showing(.limited(typed, .tooManyAtOnce)) }
            try await release(addressAttempt, from: addressLimits.signUps)
            return .showing(.busy(typed))
        }
        let action = AppAction.signUp(username, displayName: form.displayName, at: now())
        switch try await store.dispatch(action) {
        case .success(.userSignedUp(let id)):
            guard let user = store.state.users[id] else { throw AccountsError.missingAccount(id) }
            // The hash is a secret: account storage keeps it, the journal never does. Should it
            // not be kept, the sign-up is taken back (UnfinishedSignUps; docs/store.md, "Secrets
            // and erasure").
            let kept = PasswordHash(encoded: hash)
            do {
                try await UnfinishedSignUps.finish(id, in: store, at: now()) {
                    try await sessions.setPasswordHash(kept, of: id)
                }
            } catch {
                try? await release(addressAttempt, from: addressLimits.signUps)  // no account came of it
                throw error
            }
            // Only `quotebook user` or a deletion could have changed the new account's password.
            guard let session = try await sessions.start(for: id, whilePasswordIs: kept, now: now(), userAgent: userAgent) else {
                throw AccountsError.unexpected("the new account's password changed before its first session")
            }
            return .signedUp(user, session, email: email)
        case .success(let event):
            throw AccountsError.unexpected("\(event)")
        case .failure(.usernameTaken):
            // Someone took it while the password was hashing.
            try await release(addressAttempt, from: addressLimits.signUps)
            return .showing(.editing(typed, problems: [.username: .usernameTaken]))
        case .failure(.invalidDisplayName(let problem)):
            try await release(addressAttempt, from: addressLimits.signUps)
            return .showing(.editing(typed, problems: [.displayName: .displayName(problem)]))
        case .failure(let rejection):
            throw AccountsError.unexpected("\(rejection)")
        }
    }

    /// What is wrong with a new password, nil when it may be chosen: a character no typed text
    /// may hold (``TypedText``; `crypt` cannot take a NUL at all), or too short. Sign-up and
    /// `quotebook user add` both ask.
    package static func problem(withPassword password: String) -> SignUpProblem? {
        if let scalar = TypedText.firstForbiddenScalar(in: password, layout: .singleLine) { return .forbiddenCharacter(scalar) }
        return password.count < minimumPasswordLength ? .passwordTooShort : nil
    }

    /// Checks `password` for `typedUsername` and starts a session. The try is counted before the
    /// password is checked, against its `client`'s limit and then the username's, so both limits
    /// hold whatever the concurrency. From a `device` known to the account (its cookie names the
    /// account), the device's own limit stands in for the username's: strangers' failures never
    /// lock its owner out (OWASP's device cookie). A try refused unchecked, by the username's
    /// lock, a device's or the client's share of the pool, still counts against the address, so
    /// keeping someone locked costs the attacker its own allowance; one that signs in is given
    /// back to it. The check itself is a job of the client's on the hashing pool, which holds a
    /// bounded share of it per client: a try past the share is refused unchecked (`limited`,
    /// `tooManyAtOnce`) yet counted, while one the full pool refuses (`busy`, the server's
    /// fault) is given back. An unknown username still spends one hash, so timing does not tell
    /// which usernames exist.
    ///
    /// A username holding a character ``TypedText`` refuses names no account: it is answered at
    /// once, before any limit's storage (PostgreSQL text cannot hold a NUL) or the hash. The
    /// password is not held to that rule here: one that cannot match (a NUL) simply fails as a
    /// wrong password, and an account made before the rule keeps working.
    package func signIn(
        username typedUsername: String, password: String, returnTo: ReturnPath?, client: String?, userAgent: String? = nil,
        device: KnownDevice? = nil
    ) async throws -> SignInState {
        if let scalar = TypedText.firstForbiddenScalar(in: typedUsername, layout: .singleLine) {
            return .showing(.forbiddenCharacter(scalar, username: typedUsername, returnTo: returnTo))
        }
        let date = now()
        var addressAttempt: AttemptLimit.Attempt?
        if let client {
            switch try await addressLimits.signIns.reserve(client, now: date) {
            case .allowed(let attempt): addressAttempt = attempt
            case .refused(let seconds):
                return .showing(.limited(username: typedUsername, returnTo: returnTo, .allowanceSpent(retryAfter: seconds)))
            }
        }
        let user = Username(typedUsername).flatMap { store.state.user(named: $0) }
        let (limit, key) =
            if let device, let user, device.user == user.id { (deviceThrottle, device.nonce) } else { (throttle, typedUsername) }
        let attempt: AttemptLimit.Attempt
        switch try await limit.reserve(key, now: date) {
        case .allowed(let allowed):
            attempt = allowed
        case .refused(let seconds):
            // Refused without a hash, and still counted against the address.
            return .showing(.throttled(username: typedUsername, returnTo: returnTo, retryAfter: seconds))
        }
        let hash = try await passwordHash(of: user)
        let matches: Bool
        do {
            matches = try await hasher.verify(password, against: hash, for: client)
        } catch {
            // Past its share of the pool the client's own burst was refused: the try counts, so
            // a burst for one username still ends at its limit, checked or not.
            if error == .ownerAtLimit { return .showing(.limited(username: typedUsername, returnTo: returnTo, .tooManyAtOnce)) }
            try await limit.release(attempt)
            try await release(addressAttempt, from: addressLimits.signIns)
            return .showing(.busy(username: typedUsername, returnTo: returnTo))
        }
        if matches, let user, let suspension = store.state.moderation.suspended[user.id] {
            // Right, but no session: a suspension made meanwhile also ignores any started.
            try await limit.recordSuccess(attempt)
            try await release(addressAttempt, from: addressLimits.signIns)
            return .showing(.suspended(username: typedUsername, reason: suspension.reason))
        }
        // The session starts only while the hash checked is still the password: one changed (or
        // the account deleted) since the check began makes this a wrong password after all.
        guard matches, let user, let hash,
            let session = try await sessions.start(
                for: user.id, whilePasswordIs: PasswordHash(encoded: hash), now: now(), userAgent: userAgent)
        else {
            try await limit.recordFailure(attempt, now: now())
            return .showing(.rejected(username: typedUsername, returnTo: returnTo))
        }
        try await limit.recordSuccess(attempt)
        try await release(addressAttempt, from: addressLimits.signIns)
        if let suspension = store.state.moderation.suspended[user.id] {
            // Suspended while the session started, after the suspension ended the others: this one too.
            _ = try await sessions.end(id: session.record.id, of: user.id)
            return .showing(.suspended(username: typedUsername, reason: suspension.reason))
        }
        return .signedIn(user, session, returnTo: returnTo)
    }

    /// The hash `user`'s password is checked against, from account storage; nil for no account.
    package func passwordHash(of user: User?) async throws(StoreError) -> String? {
        guard let user else { return nil }
        return try await sessions.passwordHash(of: user.id)?.encoded
    }

    /// Gives `attempt` (if any) back to `limit`.
    func release(_ attempt: AttemptLimit.Attempt?, from limit: AttemptLimit) async throws(StoreError) {
        if let attempt { try await limit.release(attempt) }
    }

    private static func withoutPasswords(_ form: SignUpForm) -> SignUpForm {
        SignUpForm(username: form.username, displayName: form.displayName, password: "", passwordConfirmation: "", email: form.email)
    }
}

/// Faults in the accounts logic that mean a bug, not a person's mistake (a 500 page).
package enum AccountsError: Error, CustomStringConvertible {
    case missingAccount(UserID)
    case unexpected(String)

    package var description: String {
        switch self {
        case .missingAccount(let id): "account \(id) was created but is not in the state"
        case .unexpected(let what): "unexpected store answer: \(what)"
        }
    }
}

import Basics
package import Store

extension AccountsController {
    /// Changes `user`'s password, in the session `current`. The new password is checked first
    /// (nothing is hashed or counted for a form that cannot pass); then the current one, like a
    /// sign-in: counted towards the username's sign-in throttle before it is checked on the
    /// hashing pool, a wrong one staying counted. On success the new hash goes to account storage
    /// (the journal records only that the password changed), every session of the person ends
    /// on every instance, and a new one replaces `current`, started with its `User-Agent`.
    package func changePassword(
        _ form: PasswordChangeForm, of user: User, current: SessionRecord, client: String?
    ) async throws -> PasswordChangeState {
        var problems: [PasswordField: PasswordProblem] = [:]
        if let scalar = TypedText.firstForbiddenScalar(in: form.password, layout: .singleLine) {
            problems[.password] = .forbiddenCharacter(scalar)
        } else if form.password.count < Self.minimumPasswordLength {
            problems[.password] = .tooShort
        } else if form.password != form.passwordConfirmation {
            problems[.passwordConfirmation] = .confirmationMismatch
        }
        guard problems.isEmpty else { return .showing(.editing(problems: problems)) }

        let attempt: AttemptLimit.Attempt
        switch try await throttle.reserve(user.username.rawValue, now: now()) {
        case .allowed(let allowed): attempt = allowed
        case .refused(let seconds): return .showing(.throttled(retryAfter: seconds))
        }
        let stored = try await passwordHash(of: user)
        let matches: Bool
        let newHash: String
        do {
            matches = try await hasher.verify(form.currentPassword, against: stored, for: client)
            newHash = matches ? try await hasher.hash(form.password, for: client) : ""
        } catch let refusal as BlockingThreadPool.Overloaded {
            // As at sign-in: the client's own burst past its share counts; a full pool does not.
            if refusal == .ownerAtLimit { return .showing(.limited(.tooManyAtOnce)) }
            try await throttle.release(attempt)
            return .showing(.busy)
        }
        guard matches else {
            try await throttle.recordFailure(attempt, now: now())
            return .showing(.editing(problems: [.currentPassword: .wrongCurrentPassword]))
        }
        try await throttle.recordSuccess(attempt)
        try await sessions.setPasswordHash(PasswordHash(encoded: newHash), of: user.id)
        let replacement = try await sessions.start(for: user.id, now: now(), userAgent: current.userAgent)
        try await sessions.endSessions(of: user.id, except: replacement.record.id)
        switch try await store.dispatch(.passwordChanged(user.id, at: now())) {
        case .success: return .changed(user.username, replacement)
        case .failure(let rejection): throw AccountsError.unexpected("\(rejection)")
        }
    }
}

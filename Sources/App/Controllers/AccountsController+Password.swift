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

        switch try await checkOwnPassword(form.currentPassword, of: user, client: client) {
        case .refused(let refusal): return .showing(.refused(refusal))
        case .wrong: return .showing(.editing(problems: [.currentPassword: .wrongCurrentPassword]))
        case .right: break
        }
        let newHash: String
        do {
            newHash = try await hasher.hash(form.password, for: client)
        } catch let refusal as BlockingThreadPool.Overloaded {
            return .showing(.refused(try await refused(refusal, releasing: nil)))
        }
        let kept = PasswordHash(encoded: newHash)
        try await sessions.setPasswordHash(kept, of: user.id)
        let replacement = try await sessions.start(for: user.id, whilePasswordIs: kept, now: now(), userAgent: current.userAgent)
        try await sessions.endSessions(of: user.id, except: replacement?.record.id)
        guard let replacement else {
            // Another change of the password (from another browser) came after this one's hash:
            // it holds, and it ends every session, this browser's among them.
            return .overtaken
        }
        switch try await store.dispatch(.passwordChanged(user.id, at: now())) {
        case .success: return .changed(user.username, replacement)
        case .failure(.userNotFound):
            // Deleted meanwhile, from another browser, after the current password was checked:
            // the hash and session just written name no one, so they are erased again.
            try await sessions.erase(user.id)
            return .overtaken
        case .failure(let rejection): throw AccountsError.unexpected("\(rejection)")
        }
    }
}

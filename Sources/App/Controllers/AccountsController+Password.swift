import Basics
package import Store

extension AccountsController {
    /// Changes `user`'s password, in the session `current`. The new password is checked first
    /// (nothing is hashed or counted for a form that cannot pass); then the current one, like a
    /// sign-in (``checkOwnPassword(_:of:client:)``), a wrong one staying counted. On success the
    /// new hash replaces the one checked in account storage, only if that is still the person's
    /// (the journal records only that the password changed), every session of the person ends
    /// on every instance, and a new one replaces `current`, started with its `User-Agent`. A
    /// change whose check began before another change (or the account's deletion) completed is
    /// overtaken: it changes nothing and signs its browser out, so a stolen session that knows
    /// the old password cannot take the account back from its owner's change.
    package func changePassword(
        _ form: PasswordChangeForm, of user: User, current: SessionRecord, client: String?
    ) async throws -> PasswordChangeState {
        if let (isConfirmation, problem) = Self.newPasswordProblem(form.password, confirmation: form.passwordConfirmation) {
            return .showing(.editing(problems: [isConfirmation ? .passwordConfirmation : .password: problem]))
        }

        let checked: PasswordHash
        switch try await checkOwnPassword(form.currentPassword, of: user, client: client) {
        case .refused(let refusal): return .showing(.refused(refusal))
        case .wrong: return .showing(.editing(problems: [.currentPassword: .wrongCurrentPassword]))
        case .right(let hash): checked = hash
        }
        let newHash: String
        do {
            newHash = try await hasher.hash(form.password, for: client)
        } catch let refusal as BlockingThreadPool.Overloaded {
            return .showing(.refused(try await refused(refusal, releasing: nil)))
        }
        let kept = PasswordHash(encoded: newHash)
        // Another change or a deletion completed since the check: it holds, and it ended (or
        // ends) every session of the person, this browser's among them.
        guard try await sessions.replacePasswordHash(of: user.id, checked: checked, with: kept) else { return .overtaken }
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

    /// What is wrong with a new password typed twice, and whether it is the second field's
    /// fault; nil when it may be chosen. The change and the reset forms both ask.
    package static func newPasswordProblem(_ password: String, confirmation: String) -> (isConfirmation: Bool, PasswordProblem)? {
        if let scalar = TypedText.firstForbiddenScalar(in: password, layout: .singleLine) { return (false, .forbiddenCharacter(scalar)) }
        if password.count < minimumPasswordLength { return (false, .tooShort) }
        return password == confirmation ? nil : (true, .confirmationMismatch)
    }
}

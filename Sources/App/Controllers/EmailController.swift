import Basics
import Foundation
import Logging
package import Mail
package import Store

/// The logic of email addresses and of getting back into an account: setting an address and
/// verifying it by a mailed link, asking for a reset link, and setting a password through one
/// (SPEC.md "Mail links"). No HTTP, no HTML, no SMTP: mail goes to the outbox (``Mailroom``), in
/// the same transaction as the change that causes it, and the sender delivers it.
package struct EmailController: Sendable {
    /// `POST /password/forgot` from one client address an hour.
    package static let forgotRequestsPerClientHour = 10
    package static let forgotNamespace = "password-forgot-address"

    let accounts: AccountsController
    let mailroom: Mailroom
    /// Forgot-password requests per client address.
    let forgotLimit: AttemptLimit

    package init(accounts: AccountsController, mailroom: Mailroom, attempts: any SignInFailureStorage) {
        self.accounts = accounts
        self.mailroom = mailroom
        forgotLimit = AttemptLimit(namespace: Self.forgotNamespace, limit: Self.forgotRequestsPerClientHour, window: 3_600, storage: attempts)
    }

    private var now: Date { accounts.now() }

    /// `user`'s addresses, as only they may see them.
    package func addresses(of user: UserID) async throws(StoreError) -> EmailAddresses {
        try await mailroom.storage.addresses(of: user)
    }

    /// The address form, empty.
    package func form(of user: UserID) async throws(StoreError) -> EmailFormState {
        .editing(try await addresses(of: user), typed: "", problems: [:])
    }

    /// Makes `typed` the pending address of `user` once `currentPassword` proves it is them
    /// (checked like a sign-in, ``AccountsController/checkOwnPassword(_:of:client:)``), and mails
    /// it a link; the verified address, if any, stays in use and is told.
    package func changeAddress(to typed: String, currentPassword: String, of user: User, client: String?) async throws -> EmailChangeState {
        let addresses = try await addresses(of: user.id)
        let address: MailAddress
        switch MailAddress.check(typed.trimmingCharacters(in: .whitespaces)) {
        case .failure(let problem): return .showing(.editing(addresses, typed: typed, problems: [.email: .invalidAddress(problem)]))
        case .success(let checked): address = checked
        }
        if addresses.verified?.lowercased() == address.text.lowercased() {
            return .showing(.editing(addresses, typed: typed, problems: [.email: .alreadyVerified]))
        }
        let checked: PasswordHash
        switch try await accounts.checkOwnPassword(currentPassword, of: user, client: client) {
        case .refused(let refusal): return .showing(.refused(addresses, typed: typed, refusal))
        case .wrong: return .showing(.editing(addresses, typed: typed, problems: [.currentPassword: .wrongCurrentPassword]))
        case .right(let hash): checked = hash
        }
        switch try await request(address, for: user, replacing: addresses.verified, whilePasswordIs: checked) {
        case .queued: return .requested
        case .limited(let seconds): return .showing(.limited(addresses, typed: typed, retryAfter: Int(seconds)))
        // Changed (or the account deleted) from another browser since the check: the password
        // typed is not the current one after all, and nothing was kept.
        case .passwordChanged: return .showing(.editing(addresses, typed: typed, problems: [.currentPassword: .wrongCurrentPassword]))
        }
    }

    /// Keeps `address` as `user`'s pending address and queues its link, and a notice to the
    /// verified address it is `replacing`, in one transaction within the account's hourly
    /// allowance, while their password is still `hash` (so no link outlives a change of the
    /// password that raced it).
    func request(
        _ address: MailAddress, for user: User, replacing verified: String?, whilePasswordIs hash: PasswordHash
    ) async throws(StoreError) -> MailQueueOutcome {
        let date = now
        let token = MailLinkToken.make(.verifyAddress, now: date)
        let composer = mailroom.composer
        var mails = [
            MailComposer.encode(
                composer.verification(to: address, username: user.username, token: token.text, at: date), linkExpiresAt: token.record.expiresAt)
        ]
        if let verified, let old = MailAddress(verified) {
            mails.append(MailComposer.encode(composer.addressChanging(to: old, username: user.username, at: date)))
        }
        let outcome = try await mailroom.storage.requestAddress(
            address.text, of: user.id, whilePasswordIs: hash, token: token.record, mails: mails,
            allowance: MailSender.allowance(of: user.id), now: date)
        if outcome == .queued { mailroom.wake() }
        return outcome
    }

    /// The address given at sign-up: its link, under the new account's password. Never throws:
    /// the account exists, and a failure here (logged) leaves the address for the person to
    /// give again on their profile.
    package func requestAtSignUp(_ address: MailAddress, for user: User) async {
        do {
            guard let hash = try await accounts.sessions.passwordHash(of: user.id) else { return }
            _ = try await request(address, for: user, replacing: nil, whilePasswordIs: hash)
        } catch {
            mailroom.logger.warning("could not keep the address given at sign-up by account \(user.id): \(error)")
        }
    }

    /// The page a verification link opens: a button while the link lives.
    package func verifyLink(_ token: String) async throws(StoreError) -> VerifyLinkState {
        guard let hash = MailLinkToken.hash(of: token), try await mailroom.storage.tokenOwner(hash: hash, purpose: .verifyAddress, now: now) != nil
        else { return .dead }
        return .confirming(token: token)
    }

    /// Follows a verification link: its address becomes the verified one.
    package func verify(_ token: String) async throws(StoreError) -> VerificationState {
        guard let hash = MailLinkToken.hash(of: token) else { return .dead }
        switch try await mailroom.storage.verifyAddress(tokenHash: hash, now: now) {
        case .verified: return .verified
        case .deadToken: return .dead
        case .takenByAnother: return .takenByAnother
        }
    }

    /// Asks for a reset link for `typed`. The answer is the same, in what it says and in what it
    /// costs, whether or not any account has the address: the request is kept as it is, and the
    /// sender looks for the account later (``MailStorage/requestReset(forAddress:allowance:now:)``).
    /// Counted per client address, then per typed address; past either, `limited`.
    package func forgot(_ typed: String, client: String?) async throws(StoreError) -> ForgotPasswordState {
        let address: MailAddress
        switch MailAddress.check(typed.trimmingCharacters(in: .whitespaces)) {
        case .failure(let problem): return .form(typed: typed, problem: problem)
        case .success(let checked): address = checked
        }
        let date = now
        if let client, case .refused(let seconds) = try await forgotLimit.reserve(client, now: date) { return .limited(retryAfter: seconds) }
        switch try await mailroom.storage.requestReset(forAddress: address.text, allowance: mailroom.resetAllowance(for: address.text), now: date) {
        case .queued, .passwordChanged:
            // (A reset request checks no password: `passwordChanged` is never its answer.)
            mailroom.wake()
            return .requested
        case .limited(let seconds):
            return .limited(retryAfter: Int(seconds))
        }
    }

    /// The page a reset link opens: the form while the link lives.
    package func resetLink(_ token: String) async throws(StoreError) -> ResetFormState {
        guard let hash = MailLinkToken.hash(of: token), try await mailroom.storage.tokenOwner(hash: hash, purpose: .resetPassword, now: now) != nil
        else { return .dead }
        return .editing(token: token, problems: [:])
    }

    /// Sets a new password through a reset link: in one transaction the link is used up, the hash
    /// replaced, every other link killed, every session ended (on every instance) and a notice
    /// queued for the verified address. The person then signs in with the new password.
    package func reset(token: String, password: String, confirmation: String, client: String?) async throws -> PasswordResetState {
        guard let hash = MailLinkToken.hash(of: token),
            let owner = try await mailroom.storage.tokenOwner(hash: hash, purpose: .resetPassword, now: now)
        else { return .showing(.dead) }
        if let (isConfirmation, problem) = AccountsController.newPasswordProblem(password, confirmation: confirmation) {
            return .showing(.editing(token: token, problems: [isConfirmation ? .passwordConfirmation : .password: problem]))
        }
        let newHash: String
        do {
            newHash = try await accounts.hasher.hash(password, for: client)
        } catch is BlockingThreadPool.Overloaded {
            return .showing(.busy(token: token))
        }
        let date = now
        let composer = mailroom.composer
        let username = accounts.store.state.users[owner]?.username
        let outcome = try await mailroom.storage.resetPassword(tokenHash: hash, to: PasswordHash(encoded: newHash), now: date) { _, verified in
            guard let username, let address = MailAddress(verified) else { return nil }
            return MailComposer.encode(composer.passwordChanged(to: address, username: username, byReset: true, at: date))
        }
        switch outcome {
        case .deadToken:
            return .showing(.dead)
        case .reset(let user, let ended):
            accounts.sessions.forget(ended)
            mailroom.wake()
            // The journal records that the password changed, as a change on the profile does; an
            // account deleted meanwhile has nothing left to record it on.
            _ = try await accounts.store.dispatch(.passwordChanged(user, at: date))
            return .reset
        }
    }

    /// Tells `user`'s verified address, if any, that their password was changed on the profile,
    /// queued just after the change. Never throws: the change holds, and its browser keeps its
    /// new session whatever happens to the notice (a failure is logged).
    package func noticePasswordChanged(of user: User) async {
        do {
            guard let verified = try await addresses(of: user.id).verified, let address = MailAddress(verified) else { return }
            let message = mailroom.composer.passwordChanged(to: address, username: user.username, byReset: false, at: now)
            try await mailroom.storage.queueMail(MailComposer.encode(message), about: user.id, now: now)
            mailroom.wake()
        } catch {
            mailroom.logger.warning("could not queue the password-change notice of account \(user.id): \(error)")
        }
    }
}

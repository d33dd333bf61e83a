package import Foundation

/// What a link in a mail is for; a token of one purpose never serves another.
package enum MailTokenPurpose: String, Sendable, CaseIterable {
    /// `/email/verify`: the address it was mailed to becomes the account's verified one.
    case verifyAddress = "verify"
    /// `/password/reset`: sets a new password.
    case resetPassword = "reset"
}

/// A link's token as stored: never the token, only its SHA-256 (SPEC.md "Mail links").
package struct MailToken: Sendable, Equatable {
    /// SHA-256 of the token's random bytes.
    package var hash: [UInt8]
    package var purpose: MailTokenPurpose
    package var expiresAt: Date

    package init(hash: [UInt8], purpose: MailTokenPurpose, expiresAt: Date) {
        self.hash = hash
        self.purpose = purpose
        self.expiresAt = expiresAt
    }
}

/// A person's email addresses: the verified one mail goes to, and one waiting for its link.
package struct EmailAddresses: Sendable, Equatable {
    package var verified: String?
    package var pending: String?

    package init(verified: String? = nil, pending: String? = nil) {
        self.verified = verified
        self.pending = pending
    }
}

/// A sliding hourly allowance of mails, counted in storage under `key` (an account's, or a
/// keyed hash of a typed address) so every instance counts the same.
package struct MailAllowance: Sendable, Equatable {
    package var key: String
    package var limit: Int
    package var window: TimeInterval

    package init(key: String, limit: Int, window: TimeInterval) {
        self.key = key
        self.limit = limit
        self.window = window
    }

    /// The key `user`'s own mails are counted under, which their erasure forgets.
    package static func accountKey(_ user: UserID) -> String { "account:\(user.rawValue)" }
}

/// Whether a request for mail was kept.
package enum MailQueueOutcome: Sendable, Equatable {
    case queued
    /// The allowance is spent; nothing was kept. Retry after this many seconds.
    case limited(retryAfter: TimeInterval)
    /// The account's password is no longer the one checked (changed, reset or erased since):
    /// nothing was kept, so no link outlives the password it was asked for with.
    case passwordChanged
}

/// What following a verification link did.
package enum AddressVerification: Sendable, Equatable {
    case verified(UserID, address: String)
    /// Unknown, used, expired, replaced by a newer link, or for another purpose.
    case deadToken
    /// Another account has verified this address since; the token is used up.
    case takenByAnother
}

/// What setting a password through a reset link did.
package enum PasswordResetOutcome: Sendable, Equatable {
    /// The hash is set, every token of the account is dead, and these sessions ended (every
    /// instance was told, as ``SessionStorage/deleteSessions(of:except:)`` does).
    case reset(UserID, endedSessions: [[UInt8]])
    case deadToken
}

/// A mail in the outbox, claimed for delivery: the message as the app encoded it, opaque here.
package struct QueuedMail: Sendable, Equatable {
    package var id: Int64
    package var message: String
    /// Deliveries tried before this one.
    package var attempts: Int
    package var queuedAt: Date
    /// The end of this claim: what fences ``MailStorage/finishMail(_:)`` and
    /// ``MailStorage/retryMail(_:at:)`` against a claim that lapsed and was taken by another.
    package var claimedUntil: Date

    package init(id: Int64, message: String, attempts: Int, queuedAt: Date, claimedUntil: Date) {
        self.id = id
        self.message = message
        self.attempts = attempts
        self.queuedAt = queuedAt
        self.claimedUntil = claimedUntil
    }
}

/// Email addresses, mail links and the outbox, in account storage beside the password hashes:
/// an address is a secret like the hash, never in the journal, and erased with the account
/// (``SessionStorage/deleteSecrets(of:)``). Every change that causes a mail keeps the mail in
/// the same transaction, so a mail is never lost between the page answering and its sending
/// (SPEC.md "A mail is kept in the database").
package protocol MailStorage: Sendable {
    /// `user`'s addresses (both nil when they have none).
    func addresses(of user: UserID) async throws(StoreError) -> EmailAddresses

    /// One transaction: while `user`'s password hash is still `hash` (the one the caller
    /// checked or set; with several instances its row is locked while this runs), counts a mail
    /// against `allowance` (nothing kept past it); makes `address` `user`'s pending address;
    /// replaces their verification links with `token`; and queues `mails` (the link to the new
    /// address, a notice to the old one).
    func requestAddress(
        _ address: String, of user: UserID, whilePasswordIs hash: PasswordHash, token: MailToken, mails: [String],
        allowance: MailAllowance, now: Date
    ) async throws(StoreError) -> MailQueueOutcome

    /// The account a live (unused, unexpired) token of `purpose` belongs to, if any.
    func tokenOwner(hash: [UInt8], purpose: MailTokenPurpose, now: Date) async throws(StoreError) -> UserID?

    /// One transaction: uses up the live verification token and makes the address it was mailed
    /// to its account's verified one (the pending one is cleared when it is that address).
    func verifyAddress(tokenHash: [UInt8], now: Date) async throws(StoreError) -> AddressVerification

    /// One transaction, the same statements whether or not anyone has `address`: counts it
    /// against `allowance` and keeps the request for ``resolveResetRequests(now:allowance:compose:)``,
    /// so neither the answer nor its time tells whether the address is anyone's.
    func requestReset(forAddress address: String, allowance: MailAllowance, now: Date) async throws(StoreError) -> MailQueueOutcome

    /// Turns kept reset requests into mail, each in one transaction with the request's deletion:
    /// for the account whose verified address it names (none: the request is only deleted),
    /// within the account's `allowance`, `compose` (given the account and its verified address,
    /// as stored rather than as typed) gives the link's token and the mail, both
    /// kept, and the account's older reset links die. Returns how many mails were queued.
    func resolveResetRequests(
        now: Date, allowance: @escaping @Sendable (UserID) -> MailAllowance,
        compose: @escaping @Sendable (UserID, String) -> (token: MailToken, mail: String)?
    ) async throws(StoreError) -> Int

    /// One transaction: uses up the live reset token; sets `hash` as its account's password;
    /// kills every other link of the account; ends every session of theirs; and queues
    /// `notice(user, verifiedAddress)` when they have a verified address.
    func resetPassword(
        tokenHash: [UInt8], to hash: PasswordHash, now: Date, notice: @escaping @Sendable (UserID, String) -> String?
    ) async throws(StoreError) -> PasswordResetOutcome

    /// Queues `mail` (about `user`, whose erasure deletes it unsent).
    func queueMail(_ mail: String, about user: UserID?, now: Date) async throws(StoreError)

    /// Up to `limit` mails due by `now` that no one else holds, oldest first, each held for
    /// `lease` seconds (with several instances: claimed with `FOR UPDATE SKIP LOCKED`, so each
    /// mail goes to one sender). Also forgets expired links, and allowances older than an hour
    /// (every allowance's window).
    func claimMail(now: Date, lease: TimeInterval, limit: Int) async throws(StoreError) -> [QueuedMail]

    /// The mail was delivered, or given up: deleted, unless its claim lapsed and another took it.
    func finishMail(_ mail: QueuedMail) async throws(StoreError)

    /// Delivery failed for now: tried again at `date`, unless its claim lapsed and another took it.
    func retryMail(_ mail: QueuedMail, at date: Date) async throws(StoreError)
}

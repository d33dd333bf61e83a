import Basics
package import Store

/// Why a signed-in person's own password was not checked (to change it, or to delete their
/// account): the same three refusals as a sign-in's, shown on either form.
package enum OwnPasswordRefusal: Sendable, Equatable {
    /// Too many of the person's own wrong passwords in the last minute; the next may count in `retryAfter` seconds.
    case throttled(retryAfter: Int)
    /// Too many password hashes are queued; try again shortly.
    case busy
    /// The client already has its share of the hashing pool under way.
    case limited(AddressRefusal)
}

/// What checking a signed-in person's own password found.
package enum OwnPasswordCheck: Sendable, Equatable {
    /// The password is the person's: the hash it was checked against, which a change replaces
    /// only while it is still the person's (``SessionStorage/replacePasswordHash(of:checked:with:)``).
    case right(PasswordHash)
    case wrong
    case refused(OwnPasswordRefusal)
}

extension AccountsController {
    /// What checking `password` as `user`'s own found: right, wrong, or why it was not checked.
    /// Like a sign-in, on the hashing pool, but counted first under the person's own limit
    /// (``SignInThrottle/Kind/ownPassword``), which strangers guessing at the username never
    /// touch: their lock cannot refuse the owner's change of password or deletion. A wrong one
    /// stays counted there, and counts towards the username's lock too (SPEC.md: it "counts
    /// towards the sign-in limit"), as a stolen session guessing the password would; a right
    /// one clears only the person's own count.
    func checkOwnPassword(_ password: String, of user: User, client: String?) async throws -> OwnPasswordCheck {
        let key = String(user.id.rawValue)
        let attempt: AttemptLimit.Attempt
        switch try await ownThrottle.reserve(key, now: now()) {
        case .allowed(let allowed): attempt = allowed
        case .refused(let seconds): return .refused(.throttled(retryAfter: seconds))
        }
        let hash = try await passwordHash(of: user)
        let matches: Bool
        do {
            matches = try await hasher.verify(password, against: hash, for: client)
        } catch {
            return .refused(try await refused(error, releasing: attempt))
        }
        if matches, let hash {
            try await ownThrottle.recordSuccess(attempt)
            return .right(PasswordHash(encoded: hash))
        } else {
            try await ownThrottle.recordFailure(attempt, now: now())
            if case .allowed(let counted) = try await throttle.reserve(user.username.rawValue, now: now()) {
                try await throttle.recordFailure(counted, now: now())
            }
            return .wrong
        }
    }

    /// The refusal a full hashing pool means. As at sign-in: the client's own burst past its
    /// share counts (the attempt stays); a full pool does not (it is given back).
    func refused(_ refusal: BlockingThreadPool.Overloaded, releasing attempt: AttemptLimit.Attempt?) async throws -> OwnPasswordRefusal {
        if refusal == .ownerAtLimit { return .limited(.tooManyAtOnce) }
        if let attempt { try await ownThrottle.release(attempt) }
        return .busy
    }
}

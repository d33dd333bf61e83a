package import HTTPServer
package import Store

/// A browser that has signed in to an account before: the account, and the nonce its own
/// sign-in failures are counted under (``SignInThrottle/Kind/knownDevice``).
package struct KnownDevice: Sendable, Equatable {
    package let user: UserID
    /// 128 random bits, base64url: this browser's key, apart from every other browser's.
    package let nonce: String

    package init(user: UserID, nonce: String) {
        self.user = user
        self.nonce = nonce
    }
}

/// The `quotebook_device` cookie: OWASP's "device cookie" (Blocking Brute Force Attacks), so that
/// a stranger guessing at a username can never lock its owner out of the browser they use.
///
/// A browser gets it each time it signs in (or up), kept for ``lifetime``: the account's id and a
/// fresh nonce, signed. A sign-in from a browser whose cookie names the account being signed in
/// to is limited by its own failures only (5 a minute, keyed by the nonce), never by the
/// username's lock, which strangers' failures set; every other sign-in meets that lock.
///
/// The value is `ID.NONCE.CODE`: the account's id in decimal digits, 22 base64url characters of
/// nonce, and the ``CookieSigner`` code of `ID.NONCE`, so every instance of one book believes it
/// and nobody can make one. Anything else is ignored as if absent. It
/// holds no secret and grants nothing but a limit of its own: the password is still checked.
package struct KnownDeviceCookie: Sendable {
    /// About a year: a browser stays known between visits. (Browsers cap cookies at 400 days.)
    static let lifetime = 365 * 86_400
    static let nonceByteCount = 16

    private let signer: CookieSigner
    private let names: AppCookies

    /// The cookie of the book whose secret is `bookSecret`, named as `names` says.
    package init(bookSecret: [UInt8], names: AppCookies) {
        signer = CookieSigner(bookSecret: bookSecret, label: "quotebook_device cookie key")
        self.names = names
    }

    /// The device `cookies` name, if their device cookie is one this book signed.
    package func device(in cookies: HTTPCookies) -> KnownDevice? {
        guard let value = names.value(.knownDevice, in: cookies) else { return nil }
        return device(fromValue: value)
    }

    /// The device a cookie's `value` names, if this book signed it.
    package func device(fromValue value: String) -> KnownDevice? {
        let parts = value.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, (1...18).contains(parts[0].count),
            parts[0].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            parts[1].count == 22, let id = Int(String(decoding: parts[0], as: UTF8.self))
        else { return nil }
        let signed = value.utf8.prefix(parts[0].count + 1 + parts[1].count)
        guard signer.verifies(parts[2], for: signed) else { return nil }
        return KnownDevice(user: UserID(id), nonce: String(decoding: parts[1], as: UTF8.self))
    }

    /// A new cookie value for a browser that has just signed in to `user`: a fresh nonce, signed.
    package func value(for user: UserID) -> String {
        let signed = "\(user.rawValue).\(Base64URL.encode(SecureRandom.bytes(Self.nonceByteCount)))"
        return signed + "." + signer.code(for: signed.utf8)
    }

    /// The cookie a browser that has just signed in to `user` gets.
    func setting(for user: UserID) -> SetCookie {
        names.setting(.knownDevice, to: value(for: user), maxAge: Self.lifetime)
    }
}

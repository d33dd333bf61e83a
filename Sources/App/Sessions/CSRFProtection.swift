/// CSRF tokens for forms (SPEC.md: every POST form carries a hidden `csrf_token`).
///
/// A token is HMAC-SHA256, under a server secret kept in the database, of what it is bound to:
/// the session (signed in) or the pre-session cookie (signed-out forms: sign-up and sign-in).
/// Nothing per form is stored, a token from one session is useless in another, and a forged
/// cross-site POST cannot read the token from the page.
package struct CSRFProtection: Sendable {
    /// The cookie that binds signed-out forms: random, HttpOnly, SameSite=Lax, for the browser session.
    package static let preSessionCookieName = "quotebook_presession"
    static let preSessionTokenByteCount = 16

    /// What a token is bound to.
    package enum Binding: Sendable, Equatable {
        /// The signed-in session's id (its token's hash).
        case session(id: [UInt8])
        /// The pre-session cookie's value.
        case preSession(String)
    }

    private let key: [UInt8]

    package init(key: [UInt8]) {
        self.key = key
    }

    /// The token forms carry for `binding`.
    package func token(for binding: Binding) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: Self.message(for: binding), key: key))
    }

    /// Whether `submitted` is the token for `binding`, compared in constant time.
    package func isValid(_ submitted: String?, for binding: Binding) -> Bool {
        guard let submitted else { return false }
        return ConstantTime.equals(Array(submitted.utf8), Array(token(for: binding).utf8))
    }

    /// A new pre-session cookie value: 128 random bits, base64url.
    package static func makePreSessionValue() -> String {
        Base64URL.encode(SecureRandom.bytes(preSessionTokenByteCount))
    }

    /// Whether a cookie value has the shape ``makePreSessionValue()`` gives.
    package static func isPreSessionValue(_ value: String) -> Bool {
        value.utf8.count == 22 && Base64URL.decode(value)?.count == preSessionTokenByteCount
    }

    private static func message(for binding: Binding) -> [UInt8] {
        switch binding {
        case .session(let id): Array("session:".utf8) + id
        case .preSession(let value): Array("pre-session:".utf8) + Array(value.utf8)
        }
    }
}

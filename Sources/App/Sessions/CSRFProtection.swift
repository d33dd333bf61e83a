import Basics
import Store

/// CSRF tokens for forms (SPEC.md: every POST form carries a hidden `csrf_token`).
///
/// A token is HMAC-SHA256, under a server secret kept in the database, of what it is bound to:
/// the session (signed in) or the pre-session cookie (signed-out forms: sign-up and sign-in).
/// Nothing per form is stored, a token from one session is useless in another, and a forged
/// cross-site POST cannot read the token from the page.
///
/// A binding's token never changes, so each is computed once and kept in a small
/// ``BoundedCache`` keyed by the whole binding: a page with forms costs a dictionary look-up, not
/// an HMAC. The cache only remembers what the HMAC gives; it decides nothing. A token is still
/// valid only for the binding it was computed for, and checking one still compares every byte.
///
/// The cache is bounded because anyone can send any pre-session cookie (when full it starts
/// over; the live bindings come back at once). What it holds is secret (a token is what a
/// cross-site forger lacks), so it is never logged and lives only in this process, like the key
/// it is derived from. Whether a binding is cached changes only how fast its token comes back,
/// and asking about a binding means knowing it: a session id or a pre-session cookie, each
/// itself a secret of 128 bits or more.
package struct CSRFProtection: Sendable {
    static let preSessionTokenByteCount = 16

    /// What a token is bound to.
    package enum Binding: Sendable, Hashable {
        /// The signed-in session's id (its token's hash).
        case session(id: [UInt8])
        /// The pre-session cookie's value.
        case preSession(String)

        /// A session's id is a digest only the server's own sessions put in the table
        /// (``ServerIDHash/mix(digest:seed:)``); a pre-session value is any cookie a client
        /// sends, so it keeps SipHash.
        package func _rawHashValue(seed: Int) -> Int {
            switch self {
            case .session(let id):
                return ServerIDHash.mix(digest: id, seed: seed)
            case .preSession(let value):
                var hasher = Hasher()
                hasher.combine(seed)
                hasher.combine(value)
                return hasher.finalize()
            }
        }
    }

    private let key: [UInt8]
    private let tokens: BoundedCache<Binding, String>

    /// `cacheLimit`: how many bindings' tokens are kept at most (the cache starts over when full).
    package init(key: [UInt8], cacheLimit: Int = 4_096) {
        self.key = key
        tokens = BoundedCache(countLimit: max(1, cacheLimit))
    }

    /// The token forms carry for `binding`.
    package func token(for binding: Binding) -> String {
        if let token = tokens.value(forKey: binding) { return token }
        let token = Base64URL.encode(HMACSHA256.authenticationCode(for: Self.message(for: binding), key: key))
        tokens.insert(token, forKey: binding)
        return token
    }

    /// How many bindings' tokens are cached now (for tests).
    package var cachedTokenCount: Int { tokens.count }

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

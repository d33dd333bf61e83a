import Basics

/// Session ids (a token's SHA-256) by the cookie token they were computed from, so that a
/// signed-in request costs a table look-up instead of a base64 decode and a SHA-256.
///
/// It only remembers what ``SessionKeeper/id(forToken:)`` gives, a pure function of the token,
/// so it can never be stale: whether that id's session is still live is the keeper's
/// ``SessionCache``'s or storage's to say, as before. Only tokens that named a live session are
/// entered (``SessionKeeper`` does that after storage found one), so random tokens cannot fill
/// it; it is bounded all the same and starts over when full (the live ones come back at once).
///
/// Timing: the table is keyed by ``Token``, the token's 43 bytes packed in six words. Its hash
/// is Swift's `Hasher` (SipHash under a per-process random seed), so which slot a guessed token
/// probes tells nothing about the tokens held, and its `==` looks at all six words whatever
/// differs (no early exit, like ``ConstantTime``), so comparing a guess with a held token takes
/// the same time however many of its bytes match. A hit or a miss says only whether the guess
/// is a live token, which the response says anyway.
///
/// What it holds is secret (the tokens themselves), so it is never logged and lives only in
/// this process, like the requests that carried them. Kept in a ``BoundedCache``: every event
/// loop takes it for one look-up or insert.
final class SessionTokenIDs: Sendable {
    /// A well-formed cookie token (43 base64url characters), packed; equality in constant time.
    struct Token: Hashable, Sendable {
        private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

        /// Nil unless `text` is 43 bytes long (the shape of every token; the alphabet and the
        /// bits are checked by the decode that precedes any insert).
        init?(_ text: String) {
            let packed: Bool = text.withUTF8InPlace { bytes in
                guard bytes.count == 43 else { return false }
                withUnsafeMutableBytes(of: &words) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
                }
                return true
            }
            guard packed else { return nil }
        }

        static func == (left: Token, right: Token) -> Bool {
            let a = left.words
            let b = right.words
            let difference = (a.0 ^ b.0) | (a.1 ^ b.1) | (a.2 ^ b.2) | (a.3 ^ b.3) | (a.4 ^ b.4) | (a.5 ^ b.5)
            return difference == 0
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
            hasher.combine(words.4)
            hasher.combine(words.5)
        }
    }

    private let ids: BoundedCache<Token, [UInt8]>

    init(limit: Int) {
        ids = BoundedCache(countLimit: max(1, limit))
    }

    func id(for token: Token) -> [UInt8]? {
        ids.value(forKey: token)
    }

    func remember(_ id: [UInt8], for token: Token) {
        ids.insert(id, forKey: token)
    }

    /// How many tokens are held (for tests).
    var count: Int { ids.count }
}

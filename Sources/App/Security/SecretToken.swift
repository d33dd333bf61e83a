/// A bearer secret handed out once (a session cookie, a mail link): 32 bytes from the system's
/// secure random source, base64url (43 characters) for the client, and only its SHA-256 kept.
/// The one place both kinds are made and read back.
package enum SecretToken {
    static let byteCount = 32

    /// A new token: the text for the client, and the hash to keep.
    package static func make() -> (text: String, hash: [UInt8]) {
        let secret = SecureRandom.bytes(byteCount)
        return (Base64URL.encode(secret), SHA256.hash(secret))
    }

    /// The kept hash of a token as a client sent it; nil when it cannot be one (wrong length or
    /// alphabet), which callers answer like an unknown token.
    package static func hash(of text: String) -> [UInt8]? {
        guard text.utf8.count == Base64URL.encodedCount(of: byteCount), let bytes = Base64URL.decode(text), bytes.count == byteCount
        else { return nil }
        return SHA256.hash(bytes)
    }
}

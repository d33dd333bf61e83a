import Basics
package import Foundation
package import Store

/// A mail link's token (SPEC.md "Mail links"): 256 bits from the system's secure random source,
/// base64url in the link, and only its SHA-256 kept. Links die 30 minutes after they are made.
package enum MailLinkToken {
    package static let lifetime: TimeInterval = 30 * 60
    static let byteCount = 32

    /// A new token for `purpose`: the text for the link, and what storage keeps of it.
    package static func make(_ purpose: MailTokenPurpose, now: Date) -> (text: String, record: MailToken) {
        let secret = SecureRandom.bytes(byteCount)
        return (Base64URL.encode(secret), MailToken(hash: SHA256.hash(secret), purpose: purpose, expiresAt: now + lifetime))
    }

    /// The stored hash of a token as a link carried it; nil when it cannot be one (wrong length
    /// or alphabet), which is answered like an unknown token.
    package static func hash(of text: String) -> [UInt8]? {
        guard text.utf8.count == Base64URL.encodedCount(of: byteCount), let bytes = Base64URL.decode(text), bytes.count == byteCount
        else { return nil }
        return SHA256.hash(bytes)
    }
}

import Basics
package import Foundation
package import Store

/// A mail link's token (SPEC.md "Mail links"): a ``SecretToken`` (256 bits, only its SHA-256
/// kept) with a purpose. Links die 30 minutes after they are made.
package enum MailLinkToken {
    package static let lifetime: TimeInterval = 30 * 60

    /// A new token for `purpose`: the text for the link, and what storage keeps of it.
    package static func make(_ purpose: MailTokenPurpose, now: Date) -> (text: String, record: MailToken) {
        let token = SecretToken.make()
        return (token.text, MailToken(hash: token.hash, purpose: purpose, expiresAt: now + lifetime))
    }

    /// The stored hash of a token as a link carried it (``SecretToken/hash(of:)``).
    package static func hash(of text: String) -> [UInt8]? { SecretToken.hash(of: text) }
}

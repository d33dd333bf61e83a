import Basics
package import Logging
package import Store

/// What the pages need of mail: storage for addresses, links and the outbox; the composer; a
/// way to wake the sender once something is queued; and the keyed hash that names a typed
/// address in the forgot-password allowance, so that no address anyone typed is kept as a key.
package struct Mailroom: Sendable {
    package let storage: any MailStorage
    package let composer: MailComposer
    /// For what cannot be queued and must not fail a page (a notice after the change it tells of).
    package let logger: Logger
    private let key: [UInt8]
    private let wakeSender: @Sendable () -> Void

    /// Reset mails one typed address may ask for an hour: as many as an account gets, so an
    /// address no account has is refused exactly as one that has (SPEC.md "Mail links").
    package static let resetsPerAddressHour = MailSender.mailsPerAccountHour

    /// - Parameters:
    ///   - bookSecret: the book's secret; the allowance key is derived from it.
    ///   - wake: asks the sender to look at the outbox now.
    package init(
        storage: any MailStorage, composer: MailComposer, bookSecret: [UInt8], logger: Logger, wake: @escaping @Sendable () -> Void
    ) {
        self.storage = storage
        self.composer = composer
        self.logger = logger
        key = HMACSHA256.authenticationCode(for: Array("quotebook mail allowance".utf8), key: bookSecret)
        wakeSender = wake
    }

    /// Asks the sender to deliver what was just queued.
    package func wake() { wakeSender() }

    /// The hourly allowance of reset requests for the typed `address` (compared without case).
    package func resetAllowance(for address: String) -> MailAllowance {
        let code = HMACSHA256.authenticationCode(for: Array(address.lowercased().utf8), key: key)
        return MailAllowance(key: "address:" + Hex.encode(code), limit: Self.resetsPerAddressHour, window: 3_600)
    }
}

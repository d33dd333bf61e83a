package import Mail

/// Where mail goes and what it says it comes from (`--smtp`, `--smtp-ca`, `--mail-from`,
/// `--public-url`, `--mail-retry-delay`).
package struct MailOptions: Sendable, Equatable {
    /// The relay; nil writes each mail to the log instead, as a development server does.
    package var relay: SMTPRelay?
    /// A CA to trust for the relay besides the system's.
    package var extraCAFile: String?
    /// The `From` address; nil: ``defaultFrom``.
    package var from: MailAddress?
    /// The address people reach the app at, which links in mail start with; nil: the address
    /// the server listens on.
    package var publicURL: PublicURL?
    /// The pause after a delivery first fails for now; each later one doubles it.
    package var firstRetryPause: Double = 30

    package init() {}

    /// `quotebook@localhost`, unless `--mail-from` names another.
    package static let defaultFrom = MailAddress("quotebook@localhost")!
}

package import Foundation
package import Store

/// What a person's export holds (docs/export.md).
package struct ProfileExport: Sendable, Equatable {
    package var user: User
    package var favourite: Quote?
    /// The quotes they added that still exist, oldest first, those moderators hid among them.
    package var addedQuotes: [Quote]
    /// Which of ``addedQuotes`` moderators hid: still theirs, and in their export.
    package var hiddenQuotes: Set<QuoteID>
    /// Every version they made, of any quote (deleted ones too), oldest first.
    package var versions: [MadeVersion]
    /// Their verified address and the one waiting for its link.
    package var email: EmailAddresses
    package var exportedAt: Date

    package init(
        user: User, favourite: Quote?, addedQuotes: [Quote], hiddenQuotes: Set<QuoteID> = [], versions: [MadeVersion],
        email: EmailAddresses = EmailAddresses(), exportedAt: Date
    ) {
        self.hiddenQuotes = hiddenQuotes
        self.email = email
        self.user = user
        self.favourite = favourite
        self.addedQuotes = addedQuotes
        self.versions = versions
        self.exportedAt = exportedAt
    }
}

/// The answer to an export request.
package enum ExportState: Sendable, Equatable {
    case exported(ProfileExport)
    /// The account is gone (deleted while the request was on its way).
    case notFound
}

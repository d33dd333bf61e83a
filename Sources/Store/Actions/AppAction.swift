package import Foundation

/// Every change Quotebook can make, as a value. Each one applied is appended to the journal,
/// so the journal is the history; the encoding is therefore a stored format: add cases, never
/// change existing ones.
package enum AppAction: Codable, Sendable, Equatable {
    /// Adds a quote; the reducer gives it the next id.
    case addQuote(QuoteDraft, by: UserID?, at: Date)
    /// Replaces a quote's text and author, if it is still at `baseVersion`.
    case editQuote(QuoteID, QuoteDraft, baseVersion: Int, by: UserID?, at: Date)
    /// Creates an account; the reducer gives it the next id and refuses a taken username.
    case signUp(Username, displayName: String, passwordHash: PasswordHash, at: Date)
    /// Changes a person's display name (trimmed).
    case changeDisplayName(UserID, to: String, at: Date)
    /// Sets or (with nil) removes a person's photo; the bytes are already in the photo table.
    case setPhoto(UserID, PhotoReference?, at: Date)
    /// Makes a quote a person's favourite.
    case setFavourite(UserID, QuoteID, at: Date)
    /// Removes a quote (only the person who added it may); favourites of it are cleared.
    case deleteQuote(QuoteID, by: UserID, at: Date)
    /// Makes an earlier version's text and author current again, as a new version. The draft is
    /// recorded (read from the journal at dispatch), so replay needs no history in memory.
    case restoreQuote(QuoteID, QuoteDraft, fromVersion: Int, by: UserID?, at: Date)
    /// Records that a person changed their password. Only that it happened: the new hash is kept
    /// in account storage (``SessionStorage/setPasswordHash(_:of:)``), never in the journal.
    case passwordChanged(UserID, at: Date)
}

/// What an applied action did, handed to the caller and to observers.
package enum AppEvent: Sendable, Equatable {
    case quoteAdded(QuoteID)
    case quoteEdited(QuoteID, version: Int)
    /// An earlier version became current again as `version`.
    case quoteRestored(QuoteID, version: Int)
    case quoteDeleted(QuoteID)
    case userSignedUp(UserID)
    /// A person's display name or favourite changed.
    case profileChanged(UserID)
    /// A person's photo was set or removed; `replaced` is the one they had before, whose bytes
    /// may now be unreferenced (see ``PhotoStorage``).
    case photoChanged(UserID, replaced: PhotoReference?)
    /// A person's password changed (the hash is in account storage, not the state).
    case passwordChanged(UserID)
}

/// Why the reducer refused an action: nothing was stored.
package enum ActionRejection: Error, Sendable, Equatable {
    case quoteNotFound(QuoteID)
    /// Someone saved in between: the quote is no longer at the version the change started from.
    case staleVersion(current: Quote)
    case invalidQuote([QuoteField: FieldProblem])
    case userNotFound(UserID)
    case usernameTaken(Username)
    case invalidDisplayName(FieldProblem)
    /// The person may not do this to the quote (deleting one someone else added).
    case notAllowed
}

extension AppEvent {
    /// The quote this event changed, if it changed one.
    package var quoteID: QuoteID? {
        switch self {
        case .quoteAdded(let id), .quoteEdited(let id, _), .quoteRestored(let id, _), .quoteDeleted(let id): id
        case .userSignedUp, .profileChanged, .photoChanged, .passwordChanged: nil
        }
    }

    /// A short name for the kind of change, for logs and metrics.
    package var kind: String {
        switch self {
        case .quoteAdded: "quote_added"
        case .quoteEdited: "quote_edited"
        case .quoteRestored: "quote_restored"
        case .quoteDeleted: "quote_deleted"
        case .userSignedUp: "user_signed_up"
        case .profileChanged: "profile_changed"
        case .photoChanged: "photo_changed"
        case .passwordChanged: "password_changed"
        }
    }
}

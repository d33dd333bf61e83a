package import Foundation

/// Every change Quotebook can make, as a value. Each one applied is appended to the journal,
/// so the journal is the history; the encoding is therefore a stored format: add cases, never
/// change existing ones.
package enum AppAction: Codable, Sendable, Equatable {
    /// Adds a quote; the reducer gives it the next id.
    case addQuote(QuoteDraft, by: UserID?, at: Date)
    /// Replaces a quote's text and author, if it is still at `baseVersion`.
    case editQuote(QuoteID, QuoteDraft, baseVersion: Int, by: UserID?, at: Date)
    /// Creates an account; the reducer gives it the next id and refuses a taken username. The
    /// password's hash is not here: it is a secret, kept in account storage
    /// (``SessionStorage/setPasswordHash(_:of:)``). Entries of earlier builds held it under
    /// `passwordHash`; the schema migration moved it out and decoding ignores the key.
    case signUp(Username, displayName: String, at: Date)
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
    /// Deletes a person's account: they leave the state and their username becomes free; the
    /// quotes and versions they made stay, by no one who can be named. Appending it erases their
    /// earlier entries (``erased(_:)``), in the same transaction.
    case deleteAccount(UserID, at: Date)
    /// What an entry about a person who has since deleted their account became: a sign-up, a
    /// change of name, photo, favourite or password, with everything it said erased but whose
    /// account it was. Written only by a journal over such entries, never dispatched. Replays as
    /// the account's id being taken, so the ids given after it are the same as before.
    case erased(UserID)
    /// Gives or takes the moderator role: the operator's `quotebook user role`, never a page.
    case setRole(UserID, Role, at: Date)
    /// Reports a visible quote to the moderators, with a reason; the reducer gives the report the
    /// next id. One open report per person and quote.
    case reportQuote(QuoteID, by: UserID, reason: String, at: Date)
    /// A moderator closes a report without acting on its quote.
    case dismissReport(ReportID, by: UserID, at: Date)
    /// A moderator takes a quote out of the book for everyone but moderators; its reports close.
    case hideQuote(QuoteID, by: UserID, reason: String, at: Date)
    /// A moderator brings a hidden quote back.
    case unhideQuote(QuoteID, by: UserID, reason: String, at: Date)
    /// A moderator suspends an account (not a moderator's): it can no longer sign in.
    case suspend(UserID, by: UserID, reason: String, at: Date)
    /// A moderator lifts a suspension.
    case unsuspend(UserID, by: UserID, reason: String, at: Date)
    /// A moderator takes back a person's edits (not a moderator's): every quote in the plan still
    /// at its planned version, by them, goes back to the text of the newest version someone else
    /// made, as a new version by the moderator; the quotes only they wrote are hidden. One entry,
    /// however many quotes; the journal indexes a version under each quote it made.
    case revertEdits(UserID, by: UserID, reason: String, at: Date, plan: RevertPlan)
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
    /// A person's account was deleted; `photo` is the one they had, whose bytes may now be
    /// unreferenced (see ``PhotoStorage``).
    case accountDeleted(UserID, photo: PhotoReference?)
    /// Replaying an erased entry: nothing but the id being taken.
    case erasedEntryReplayed(UserID)
    /// A person was given or lost the moderator role.
    case roleChanged(UserID)
    /// `reporter` reported a quote.
    case quoteReported(ReportID, by: UserID)
    case reportDismissed(ReportID)
    /// The quote left the book for everyone but moderators (its open pages drop it).
    case quoteHidden(QuoteID)
    case quoteUnhidden(QuoteID)
    /// The person was suspended (their sessions are ended by whoever dispatched it) or let back.
    case suspended(UserID)
    case unsuspended(UserID)
    /// A revert of `user`'s edits made these versions and hid these quotes.
    case reverted(UserID, restored: [RevertedVersion], hidden: [QuoteID])
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
    /// The person may not do this to the quote (deleting one someone else added), or may not
    /// moderate, or may not be moderated (a moderator).
    case notAllowed
    /// The person already has an open report of this quote.
    case alreadyReported(ReportID)
    case reportNotFound(ReportID)
    /// A moderation reason (or a report's) that cannot be kept.
    case invalidReason(FieldProblem)
}

extension AppEvent {
    /// The quote this event changed, if it changed one.
    package var quoteID: QuoteID? {
        switch self {
        case .quoteAdded(let id), .quoteEdited(let id, _), .quoteRestored(let id, _), .quoteDeleted(let id), .quoteHidden(let id),
            .quoteUnhidden(let id):
            id
        case .userSignedUp, .profileChanged, .photoChanged, .passwordChanged, .accountDeleted, .erasedEntryReplayed, .roleChanged,
            .quoteReported, .reportDismissed, .suspended, .unsuspended, .reverted:
            nil
        }
    }

    /// Every quote this event changed: ``quoteID``'s, or the many a revert did.
    package var quoteIDs: [QuoteID] {
        if case let .reverted(_, restored, hidden) = self { return restored.map(\.quote) + hidden }
        return quoteID.map { [$0] } ?? []
    }

    /// The quote whose history this event's journal entry belongs to: ``quoteID`` for a new
    /// version or a deletion, nil for hiding and unhiding, which are no versions (a quote's history
    /// numbers its versions by their entries' order among the quote's).
    package var historyQuoteID: QuoteID? {
        switch self {
        case .quoteHidden, .quoteUnhidden: nil
        default: quoteID
        }
    }

    /// The person this event is about, if it is about one: whose entries a deletion erases.
    /// A report is theirs (its reason is erased, the report itself kept: report ids count
    /// reports). What moderators did to someone (a role, a suspension, a revert) is the
    /// moderators' record, kept in the log after the account goes, as quote edits are.
    package var personID: UserID? {
        switch self {
        case .userSignedUp(let id), .profileChanged(let id), .photoChanged(let id, _), .passwordChanged(let id),
            .accountDeleted(let id, _), .erasedEntryReplayed(let id), .quoteReported(_, let id):
            id
        case .quoteAdded, .quoteEdited, .quoteRestored, .quoteDeleted, .reportDismissed, .quoteHidden, .quoteUnhidden, .roleChanged,
            .suspended, .unsuspended, .reverted:
            nil
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
        case .accountDeleted: "account_deleted"
        case .erasedEntryReplayed: "erased_entry_replayed"
        case .roleChanged: "role_changed"
        case .quoteReported: "quote_reported"
        case .reportDismissed: "report_dismissed"
        case .quoteHidden: "quote_hidden"
        case .quoteUnhidden: "quote_unhidden"
        case .suspended: "suspended"
        case .unsuspended: "unsuspended"
        case .reverted: "reverted"
        }
    }
}

package import Logging

/// Sees every action the store is asked to apply, in order, and what became of it: the server's
/// form of Redux middleware (PATTERNS.md §3). Logging and metrics are middleware; none of them
/// can change an action, so the journal stays the only record of what happened.
///
/// Called on the store's executor, in dispatch order, after the action's batch is durable (or,
/// for a refusal, once every action it was judged against is): keep it quick and never block.
/// Entries that other instances appended to a shared journal reach observers,
/// not middleware: each instance counts and logs what it was asked to do.
package protocol StoreMiddleware: Sendable {
    /// `action` is durable at journal position `sequence` and `event` is what it did.
    func applied(_ action: AppAction, event: AppEvent, sequence: Int64)
    /// `action` was refused for `rejection`; nothing was stored.
    func refused(_ action: AppAction, because rejection: ActionRejection)
}

extension StoreMiddleware {
    package func refused(_ action: AppAction, because rejection: ActionRejection) {}
}

/// One structured line per applied action: its kind, the journal position, who and which
/// quote or account — never the action's contents (names and text are the person's own).
package struct ActionLogMiddleware: StoreMiddleware {
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    package func applied(_ action: AppAction, event: AppEvent, sequence: Int64) {
        logger.info(Self.line(for: action, event: event, sequence: sequence))
    }

    package func refused(_ action: AppAction, because rejection: ActionRejection) {
        logger.debug("action=\(action.kind) refused=\(rejection.kind)")
    }

    /// `action=quote_edited sequence=42 quote=7 by=3`.
    package static func line(for action: AppAction, event: AppEvent, sequence: Int64) -> String {
        var line = "action=\(event.kind) sequence=\(sequence)"
        if let quote = event.quoteID { line += " quote=\(quote)" }
        switch event {
        case .userSignedUp(let user), .profileChanged(let user), .photoChanged(let user, _), .passwordChanged(let user),
            .accountDeleted(let user, _), .erasedEntryReplayed(let user), .roleChanged(let user), .suspended(let user),
            .unsuspended(let user):
            line += " user=\(user)"
        case let .reverted(user, restored, hidden):
            line += " user=\(user) restored=\(restored.count) hidden=\(hidden.count)"
        case .quoteReported(let report, _), .reportDismissed(let report):
            line += " report=\(report)"
        case .quoteAdded, .quoteEdited, .quoteRestored, .quoteDeleted, .quoteHidden, .quoteUnhidden: break
        }
        if let actor = action.actor { line += " by=\(actor)" }
        return line
    }
}

extension AppAction {
    /// A short name for the kind of action, for logs and metrics.
    package var kind: String {
        switch self {
        case .addQuote: "add_quote"
        case .editQuote: "edit_quote"
        case .restoreQuote: "restore_quote"
        case .deleteQuote: "delete_quote"
        case .signUp: "sign_up"
        case .changeDisplayName: "change_display_name"
        case .setPhoto: "set_photo"
        case .setFavourite: "set_favourite"
        case .passwordChanged: "password_changed"
        case .deleteAccount: "delete_account"
        case .erased: "erased"
        case .setRole: "set_role"
        case .reportQuote: "report_quote"
        case .dismissReport: "dismiss_report"
        case .hideQuote: "hide_quote"
        case .unhideQuote: "unhide_quote"
        case .suspend: "suspend"
        case .unsuspend: "unsuspend"
        case .revertEdits: "revert_edits"
        }
    }

    /// Whether this is something a person adds to the book or its profiles (a quote, a version,
    /// a name, a photo, a favourite, a report): what a suspension stops. Not a change of
    /// password or the deletion of the account, and not what moderators do.
    package var isContribution: Bool {
        switch self {
        case .addQuote, .editQuote, .restoreQuote, .deleteQuote, .changeDisplayName, .setPhoto, .setFavourite, .reportQuote: true
        case .signUp, .passwordChanged, .deleteAccount, .erased, .setRole, .dismissReport, .hideQuote, .unhideQuote, .suspend,
            .unsuspend, .revertEdits:
            false
        }
    }

    /// The account that made the change, when one did (the seed and sign-ups have none).
    package var actor: UserID? {
        switch self {
        case .addQuote(_, let user, _), .editQuote(_, _, _, let user, _), .restoreQuote(_, _, _, let user, _): user
        case .deleteQuote(_, let user, _), .changeDisplayName(let user, _, _), .setPhoto(let user, _, _),
            .setFavourite(let user, _, _), .passwordChanged(let user, _), .deleteAccount(let user, _),
            .reportQuote(_, let user, _, _), .dismissReport(_, let user, _), .hideQuote(_, let user, _, _),
            .unhideQuote(_, let user, _, _), .suspend(_, let user, _, _), .unsuspend(_, let user, _, _),
            .revertEdits(_, let user, _, _, _):
            user
        case .signUp, .erased, .setRole: nil
        }
    }
}

extension ActionRejection {
    /// A short name for the reason, for logs and metrics.
    package var kind: String {
        switch self {
        case .quoteNotFound: "quote_not_found"
        case .staleVersion: "stale_version"
        case .invalidQuote: "invalid_quote"
        case .userNotFound: "user_not_found"
        case .usernameTaken: "username_taken"
        case .invalidDisplayName: "invalid_display_name"
        case .notAllowed: "not_allowed"
        case .alreadyReported: "already_reported"
        case .reportNotFound: "report_not_found"
        case .invalidReason: "invalid_reason"
        }
    }
}

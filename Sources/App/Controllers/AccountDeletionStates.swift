package import Store

/// Where deleting an account stands: still on the form, or done (an outcome the profiles
/// coordinator reports to its parent, never a page).
package enum AccountDeletionState: Sendable, Equatable {
    case showing(AccountDeletionFormState)
    /// The account is gone; `photo` was theirs, for the photo keeper to free.
    case deleted(photo: PhotoReference?)
}

/// What the delete-account page shows.
package enum AccountDeletionFormState: Sendable, Equatable {
    /// What deleting does and the form; `wrongPassword` after a wrong one (422).
    case confirming(wrongPassword: Bool)
    /// The password was not checked.
    case refused(OwnPasswordRefusal)
}

package import Store

/// What a person typed into the change-password form (never shown again).
package struct PasswordChangeForm: Sendable, Equatable {
    package var currentPassword: String
    package var password: String
    package var passwordConfirmation: String

    package init(currentPassword: String, password: String, passwordConfirmation: String) {
        self.currentPassword = currentPassword
        self.password = password
        self.passwordConfirmation = passwordConfirmation
    }
}

/// Why a field of the change-password form was refused.
package enum PasswordProblem: Sendable, Equatable {
    /// The current password is not the person's (the try counted towards the sign-in throttle).
    case wrongCurrentPassword
    /// The new password holds a character no typed text may (``TypedText``).
    case forbiddenCharacter(Unicode.Scalar)
    /// Fewer than ``AccountsController/minimumPasswordLength`` characters.
    case tooShort
    case confirmationMismatch
}

/// Where changing a password stands: still on the form, or done (an outcome the profiles
/// coordinator reports to its parent, never a page).
package enum PasswordChangeState: Sendable, Equatable {
    case showing(PasswordFormState)
    /// The new password holds; every other session ended, and this is the one that replaces
    /// the session the change was made in.
    case changed(Username, IssuedSession)
    /// Another browser got there first, after this change's current password was checked: the
    /// account was deleted (nothing of the change is kept), or the password was changed again
    /// (that change holds). Either way this browser's session is gone with the rest.
    case overtaken
}

/// What the change-password form shows.
package enum PasswordFormState: Sendable, Equatable {
    /// The form, with a problem per wrong field (none when first opened).
    case editing(problems: [PasswordField: PasswordProblem])
    /// The current password was not checked.
    case refused(OwnPasswordRefusal)
}

/// The names of every form field, in one typed place: coordinators read forms through these
/// cases and templates receive them in their contexts (`{{fields.username}}`), so no field name
/// is spelled twice.
package protocol FormField: RawRepresentable<String>, CaseIterable, Sendable {}

/// The hidden field every POST form carries (SPEC.md "Rules and answers").
package enum CSRFField: String, FormField {
    case token = "csrf_token"
}

/// `POST /signup`.
package enum SignUpField: String, FormField {
    case username
    case displayName = "display_name"
    case password
    case passwordConfirmation = "password_confirmation"
    /// Optional: verified by a mailed link, as on `/profile/email`.
    case email
}

/// `POST /login`; `return_to` also travels in the sign-in page's query.
package enum SignInField: String, FormField {
    case username
    case password
    case returnTo = "return_to"
}

/// `POST /quotes/{id}` (and, later, `POST /quotes`).
package enum QuoteFormField: String, FormField {
    case text
    case author
    case version
}

/// The search box on `GET /quotes` (a GET form: the field is the query's `q`).
package enum QuoteSearchField: String, FormField {
    case query = "q"
}

/// `POST /profile/name` and `POST /profile/photo`.
package enum ProfileField: String, FormField {
    case displayName = "display_name"
    case photo
}

/// `POST /profile/password`.
package enum PasswordField: String, FormField {
    case currentPassword = "current_password"
    case password
    case passwordConfirmation = "password_confirmation"
}

/// The delete-account form: the password, to confirm.
package enum AccountDeletionField: String, FormField {
    case password
}

/// `POST /quotes/{id}/report` and the moderators' forms: why.
package enum ModerationField: String, FormField {
    case reason
}

/// `POST /profile/email`: the new address, and the current password to prove it is them.
package enum EmailField: String, FormField {
    case email
    case currentPassword = "current_password"
}

/// `POST /password/forgot`.
package enum ForgotPasswordField: String, FormField {
    case email
}

/// `POST /email/verify`: the link's token, carried from the page the link opened.
package enum VerifyEmailField: String, FormField {
    case token
}

/// `POST /password/reset`: the link's token and the new password, twice.
package enum ResetPasswordField: String, FormField {
    case token
    case password
    case passwordConfirmation = "password_confirmation"
}

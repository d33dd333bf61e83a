package import Mail
package import Store

/// Why an email field was refused.
package enum EmailProblem: Sendable, Equatable {
    case invalidAddress(MailAddressProblem)
    /// The current password is not the person's (the try counted, as at sign-in).
    case wrongCurrentPassword
    /// It is already the person's verified address.
    case alreadyVerified
}

/// What the address page (and the address part of the edit page) shows.
package enum EmailFormState: Sendable, Equatable {
    /// The person's addresses and the form, with what was typed and a problem per field.
    case editing(EmailAddresses, typed: String, problems: [EmailField: EmailProblem])
    /// The current password was not checked (too many tries, a busy server).
    case refused(EmailAddresses, typed: String, OwnPasswordRefusal)
    /// The account's hourly allowance of address mails is spent; nothing was kept.
    case limited(EmailAddresses, typed: String, retryAfter: Int)
}

/// Where setting an address stands.
package enum EmailChangeState: Sendable, Equatable {
    case showing(EmailFormState)
    /// The address waits for its link, which is queued (with a notice to the old address).
    case requested
}

/// What following an address's link shows (`GET /email/verify`).
package enum VerifyLinkState: Sendable, Equatable {
    /// A live link: the page with one button, carrying the token.
    case confirming(token: String)
    case dead
}

/// What confirming an address did (`POST /email/verify`).
package enum VerificationState: Sendable, Equatable {
    case verified
    case dead
    /// Another account has verified the address meanwhile.
    case takenByAnother
}

/// What the forgot-password page shows.
package enum ForgotPasswordState: Sendable, Equatable {
    /// The form; `problem` when what was typed cannot be an address.
    case form(typed: String, problem: MailAddressProblem?)
    /// The same answer whether or not an account has the address.
    case requested
    /// This client, or this address, asked too often this hour.
    case limited(retryAfter: Int)
}

/// What the reset page shows.
package enum ResetFormState: Sendable, Equatable {
    case editing(token: String, problems: [ResetPasswordField: PasswordProblem])
    case dead
    /// Too many password hashes are queued; try again shortly.
    case busy(token: String)
}

/// Where setting a password through a link stands.
package enum PasswordResetState: Sendable, Equatable {
    case showing(ResetFormState)
    /// The password is set and every session of the account ended: the person signs in anew.
    case reset
}

package import Mail
package import Store

/// What a person typed into the sign-up form (the passwords are never shown again).
package struct SignUpForm: Sendable, Equatable {
    package var username: String
    package var displayName: String
    package var password: String
    package var passwordConfirmation: String
    /// Optional; empty for none.
    package var email: String

    package init(username: String, displayName: String, password: String, passwordConfirmation: String, email: String = "") {
        self.username = username
        self.displayName = displayName
        self.password = password
        self.passwordConfirmation = passwordConfirmation
        self.email = email
    }
}

/// Why a sign-up field was refused.
package enum SignUpProblem: Sendable, Equatable {
    /// Holds a character no typed text may (``TypedText``): the username or the password.
    case forbiddenCharacter(Unicode.Scalar)
    /// Not 3–32 of `a-z 0-9 _ -`.
    case invalidUsername
    case usernameTaken
    case displayName(FieldProblem)
    /// Fewer than ``AccountsController/minimumPasswordLength`` characters.
    case passwordTooShort
    case confirmationMismatch
    /// The optional email address is not one mail can go to.
    case invalidEmail(MailAddressProblem)
}

/// Where signing up stands: still on the form, or done (an outcome the accounts coordinator
/// reports to its parent, never a page).
package enum SignUpState: Sendable, Equatable {
    case showing(SignUpFormState)
    /// The account exists and this session is signed in to it; `email`: the address to verify,
    /// if one was given.
    case signedUp(User, IssuedSession, email: MailAddress?)
}

/// What the sign-up form shows.
package enum SignUpFormState: Sendable, Equatable {
    /// The form, with a problem per wrong field (none when first opened).
    case editing(SignUpForm, problems: [SignUpField: SignUpProblem])
    /// Too many password hashes are queued; try again shortly.
    case busy(SignUpForm)
    /// Refused for the client's address: too many accounts made from it lately, or too many of
    /// its password hashes under way.
    case limited(SignUpForm, AddressRefusal)
}

/// Where signing in stands: still on the form, or done (an outcome the accounts coordinator
/// reports to its parent, never a page).
package enum SignInState: Sendable, Equatable {
    case showing(SignInFormState)
    case signedIn(User, IssuedSession, returnTo: ReturnPath?)
}

/// What the sign-in form shows.
package enum SignInFormState: Sendable, Equatable {
    /// The form; `username` is kept as typed.
    case form(username: String, returnTo: ReturnPath?)
    /// Wrong username or password: one message that does not say which.
    case rejected(username: String, returnTo: ReturnPath?)
    /// The username holds a character no typed text may (``TypedText``), so it names no
    /// account; nothing was checked or counted.
    case forbiddenCharacter(Unicode.Scalar, username: String, returnTo: ReturnPath?)
    /// Too many tries for this username in the last minute; the next may count in
    /// `retryAfter` seconds.
    case throttled(username: String, returnTo: ReturnPath?, retryAfter: Int)
    /// Too many password hashes are queued; try again shortly.
    case busy(username: String, returnTo: ReturnPath?)
    /// The password was right but moderators suspended the account (told only to someone who
    /// knows the password), with the moderators' reason.
    case suspended(username: String, reason: String)
    /// Refused for the client's address: too many failed tries from it lately, or too many of
    /// its password checks under way.
    case limited(username: String, returnTo: ReturnPath?, AddressRefusal)
}

/// Why a client's address may not sign in or sign up just now.
package enum AddressRefusal: Sendable, Equatable {
    /// Its allowance for the window is spent; the next try may count in `retryAfter` seconds.
    case allowanceSpent(retryAfter: Int)
    /// It already has its share of the hashing pool queued or running; try again in a second.
    case tooManyAtOnce

    /// Whole seconds to wait (a `Retry-After` value).
    package var retryAfter: Int {
        switch self {
        case .allowanceSpent(let seconds): seconds
        case .tooManyAtOnce: 1
        }
    }
}

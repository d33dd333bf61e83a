import HTTPServer
import Store
import Templates

/// Renders ``SignUpFormState``: the form (200, or 422 with a message per wrong field, 503 when the
/// hashing queue is full, 429 when too many accounts came from the client's address lately).
/// Passwords are never written back into the page.
package enum SignUpView {
    static let fieldNames = FormFieldNames.of(SignUpField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let action: String
        let signInURL: String
        let username: String
        let displayName: String
        let email: String
        let errors: [SignUpField: String]
        /// Why the form came back though nothing in it was wrong.
        let message: String?

        var templateValue: TemplateValue {
            var values: [String: TemplateValue] = [
                "action": .string(action), "signInURL": .string(signInURL), "username": .string(username),
                "displayName": .string(displayName), "email": .string(email), "hasErrors": .bool(!errors.isEmpty),
                "fields": SignUpView.fieldNames,
                "message": message.map(TemplateValue.string) ?? .null,
            ]
            for field in SignUpField.allCases {
                values[String(describing: field) + "Error"] = errors[field].map(TemplateValue.string) ?? .null
            }
            return .object(values)
        }
    }

    package static func page(for state: SignUpFormState) -> Page {
        switch state {
        case let .editing(form, problems):
            page(form, problems: problems, status: problems.isEmpty ? .ok : .unprocessableContent)
        case .busy(let form):
            page(
                form, problems: [:], status: .serviceUnavailable, headers: ["Retry-After": "5"],
                message: "Quotebook is busy right now. Please try again in a few seconds.")
        case let .limited(form, refusal):
            page(
                form, problems: [:], status: .tooManyRequests, headers: ["Retry-After": String(refusal.retryAfter)],
                message: AddressRefusalText.sentence(for: refusal, spent: "Many accounts have been made from your network lately."))
        }
    }

    private static func page(
        _ form: SignUpForm, problems: [SignUpField: SignUpProblem], status: HTTPStatus, headers: HTTPHeaders = [:],
        message: String? = nil
    ) -> Page {
        Page(
            template: .signUp, status: status, headers: headers,
            context: Context(
                action: AccountsRoute.signUp.path, signInURL: AccountsRoute.signInForm(returnTo: nil).path,
                username: form.username, displayName: form.displayName, email: form.email,
                errors: Dictionary(uniqueKeysWithValues: problems.map { ($0.key, Self.message(for: $0.value, in: $0.key)) }),
                message: message))
    }

    /// The sentence shown beside `field`, which has `problem`.
    package static func message(for problem: SignUpProblem, in field: SignUpField) -> String {
        switch problem {
        case .forbiddenCharacter(let scalar):
            TypedTextMessage.forbidden(scalar, in: field == .username ? "your username" : "your password")
        case .invalidUsername:
            "Please choose a username of \(Username.lengths.lowerBound) to \(Username.lengths.upperBound) letters a–z, digits, “_” or “-”."
        case .usernameTaken: "That username is taken. Please choose another."
        case .displayName(let problem): QuoteEditView.message(for: problem, field: "the name others see")
        case .passwordTooShort: "Please choose a password of at least \(AccountsController.minimumPasswordLength) characters."
        case .confirmationMismatch: "The two passwords differ. Please type the same password twice."
        case .invalidEmail(let problem): AddressProblemText.sentence(for: problem)
        }
    }
}

/// Renders ``SignInFormState``: the form (200), wrong credentials (401, one message for both
/// fields), a username no account can have (422, beside the field), too many tries for the
/// username or from the address (429), too busy (503). The username is kept, the password never.
package enum SignInView {
    static let fieldNames = FormFieldNames.of(SignInField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let action: String
        let signUpURL: String
        let username: String
        let returnTo: String?
        let message: String?
        /// The message beside the username field (a character it may not hold).
        var usernameError: String? = nil

        var templateValue: TemplateValue {
            .object([
                "action": .string(action), "signUpURL": .string(signUpURL), "username": .string(username),
                "returnTo": returnTo.map(TemplateValue.string) ?? .null, "message": message.map(TemplateValue.string) ?? .null,
                "usernameError": usernameError.map(TemplateValue.string) ?? .null, "fields": SignInView.fieldNames,
                "forgotURL": .string(AccountsRoute.forgotForm.path),
            ])
        }
    }

    package static func page(for state: SignInFormState) -> Page {
        switch state {
        case let .form(username, returnTo):
            page(username, returnTo, nil, .ok)
        case let .rejected(username, returnTo):
            page(username, returnTo, "That username and password do not match an account. Please try again.", .unauthorized)
        case let .forbiddenCharacter(scalar, username, returnTo):
            page(
                username, returnTo, "Please correct the marked field.", .unprocessableContent,
                usernameError: TypedTextMessage.forbidden(scalar, in: "your username"))
        case let .throttled(username, returnTo, seconds):
            page(
                username, returnTo,
                "Too many failed tries for this username. Please try again in \(WaitText.phrase(seconds: seconds)).",
                .tooManyRequests, ["Retry-After": String(seconds)])
        case let .busy(username, returnTo):
            page(username, returnTo, "Quotebook is busy right now. Please try again in a few seconds.", .serviceUnavailable, ["Retry-After": "5"])
        case let .limited(username, returnTo, refusal):
            page(
                username, returnTo,
                AddressRefusalText.sentence(for: refusal, spent: "Too many sign-in attempts have come from your network."),
                .tooManyRequests, ["Retry-After": String(refusal.retryAfter)])
        case let .suspended(username, reason):
            page(
                username, nil, "This account is suspended by the moderators, so it cannot sign in. Their reason: “\(reason)”",
                .forbidden)
        }
    }

    private static func page(
        _ username: String, _ returnTo: ReturnPath?, _ message: String?, _ status: HTTPStatus, _ headers: HTTPHeaders = [:],
        usernameError: String? = nil
    ) -> Page {
        Page(
            template: .signIn, status: status, headers: headers,
            context: Context(
                action: AccountsRoute.signIn.path, signUpURL: AccountsRoute.signUpForm.path, username: username,
                returnTo: returnTo?.rawValue, message: message, usernameError: usernameError))
    }
}

/// What the sign-in and sign-up pages say when the client's address is refused for now.
enum AddressRefusalText {
    /// `spent` (what was used up) and when to try again, or that too much is under way.
    static func sentence(for refusal: AddressRefusal, spent: String) -> String {
        switch refusal {
        case .allowanceSpent(let seconds): "\(spent) Please try again in \(WaitText.phrase(seconds: seconds))."
        case .tooManyAtOnce: "Your network has too many sign-ins and sign-ups under way at once. Please try again in a second."
        }
    }
}

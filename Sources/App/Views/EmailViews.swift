import HTTPServer
import Mail
import Store
import Templates

/// Renders ``EmailFormState``: the address page (`/profile/email`), the person's verified and
/// pending addresses and the form to set one (200; 422 with a message per wrong field; 429 past
/// the hourly allowance or the own-password limit; 503 when busy). Addresses appear on no other
/// person's page: this page and the edit page are the owner's alone.
package enum EmailView {
    static let fieldNames = FormFieldNames.of(EmailField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let addresses: EmailAddresses
        let typed: String
        let errors: [EmailField: String]
        let message: String?

        var templateValue: TemplateValue {
            var values = EmailView.addressValues(addresses)
            values["action"] = .string(ProfilesRoute.changeEmail.path)
            values["editURL"] = .string(ProfilesRoute.edit.path)
            values["typed"] = .string(typed)
            values["hasErrors"] = .bool(!errors.isEmpty)
            values["message"] = message.map(TemplateValue.string) ?? .null
            values["fields"] = EmailView.fieldNames
            for field in EmailField.allCases {
                values[String(describing: field) + "Error"] = errors[field].map(TemplateValue.string) ?? .null
            }
            return .object(values)
        }
    }

    /// What the page and the edit page show of `addresses`.
    static func addressValues(_ addresses: EmailAddresses) -> [String: TemplateValue] {
        [
            "verifiedEmail": addresses.verified.map(TemplateValue.string) ?? .null,
            "pendingEmail": addresses.pending.map(TemplateValue.string) ?? .null,
            "hasEmail": .bool(addresses.verified != nil || addresses.pending != nil),
            "emailURL": .string(ProfilesRoute.emailForm.path),
        ]
    }

    package static func page(for state: EmailFormState) -> Page {
        switch state {
        case let .editing(addresses, typed, problems):
            return page(
                problems.isEmpty ? .ok : .unprocessableContent, [:], addresses, typed: typed,
                errors: Dictionary(uniqueKeysWithValues: problems.map { ($0.key, message(for: $0.value)) }))
        case let .refused(addresses, typed, refusal):
            let (status, headers, message) = OwnPasswordRefusalText.status(for: refusal)
            return page(status, headers, addresses, typed: typed, message: message)
        case let .limited(addresses, typed, seconds):
            return page(
                .tooManyRequests, ["Retry-After": String(seconds)], addresses, typed: typed,
                message: "Your account has been sent several links this hour. Please try again in \(WaitText.phrase(seconds: seconds)).")
        }
    }

    private static func page(
        _ status: HTTPStatus, _ headers: HTTPHeaders = [:], _ addresses: EmailAddresses, typed: String,
        errors: [EmailField: String] = [:], message: String? = nil
    ) -> Page {
        Page(
            template: .profileEmail, status: status, headers: headers,
            context: Context(addresses: addresses, typed: typed, errors: errors, message: message))
    }

    /// The sentence beside the field that has `problem`.
    package static func message(for problem: EmailProblem) -> String {
        switch problem {
        case .invalidAddress(let problem): AddressProblemText.sentence(for: problem)
        case .wrongCurrentPassword: "That is not your current password. Please try again."
        case .alreadyVerified: "That is already your address."
        }
    }
}

/// How a form says an address cannot be one.
enum AddressProblemText {
    static func sentence(for problem: MailAddressProblem) -> String {
        switch problem {
        case .empty: "Please enter an email address."
        case .tooLong: "An email address has at most 254 characters."
        case .notOneAt: "An email address has exactly one “@”, as in name@example.org."
        case .localPartTooLong: "The part before the “@” has at most \(MailAddress.maximumLocalPartBytes) characters."
        case .invalidLocalPart: "The part before the “@” holds characters an address cannot, such as spaces or quotes."
        case .invalidDomain: "The part after the “@” is not a domain, such as example.org."
        }
    }
}

/// Renders ``VerifyLinkState``: the one-button page a verification link opens (200), or the
/// dead-link page (410). Carries the token, so nothing may keep it.
package enum VerifyEmailView {
    static let fieldNames = FormFieldNames.of(VerifyEmailField.self)

    package static func page(for state: VerifyLinkState) -> Page {
        switch state {
        case .confirming(let token):
            Page(
                template: .emailVerify, headers: ["Cache-Control": "no-store"],
                context: TemplateValue.object([
                    "action": .string(AccountsRoute.verify.path), "token": .string(token), "fields": fieldNames,
                ]))
        case .dead:
            DeadLinkView.page(retryURL: ProfilesRoute.emailForm.path, retryText: "Ask for a new link on your email address page")
        }
    }
}

/// Renders ``ForgotPasswordState``: the form (200, 422 for what cannot be an address), the same
/// "check your mail" page whatever the address (200), or 429.
package enum ForgotPasswordView {
    static let fieldNames = FormFieldNames.of(ForgotPasswordField.self)

    package static func page(for state: ForgotPasswordState) -> Page {
        switch state {
        case let .form(typed, problem):
            page(problem == nil ? .ok : .unprocessableContent, typed: typed, error: problem.map(AddressProblemText.sentence(for:)))
        case .requested:
            page(.ok, typed: "", requested: true)
        case .limited(let seconds):
            page(
                .tooManyRequests, ["Retry-After": String(seconds)], typed: "",
                message: "Too many links have been asked for lately. Please try again in \(WaitText.phrase(seconds: seconds)).")
        }
    }

    private static func page(
        _ status: HTTPStatus, _ headers: HTTPHeaders = [:], typed: String, error: String? = nil, message: String? = nil,
        requested: Bool = false
    ) -> Page {
        Page(
            template: .passwordForgot, status: status, headers: headers,
            context: TemplateValue.object([
                "action": .string(AccountsRoute.forgot.path), "signInURL": .string(AccountsRoute.signInForm(returnTo: nil).path),
                "typed": .string(typed), "emailError": error.map(TemplateValue.string) ?? .null,
                "message": message.map(TemplateValue.string) ?? .null, "requested": .bool(requested), "fields": fieldNames,
            ]))
    }
}

/// Renders ``ResetFormState``: the new-password form (200, 422 per wrong field, 503 when busy)
/// or the dead-link page (410). Carries the token, so nothing may keep it.
package enum ResetPasswordView {
    static let fieldNames = FormFieldNames.of(ResetPasswordField.self)

    package static func page(for state: ResetFormState) -> Page {
        switch state {
        case let .editing(token, problems):
            var errors: [String: TemplateValue] = [:]
            for (field, problem) in problems { errors[String(describing: field) + "Error"] = .string(PasswordView.message(for: problem)) }
            return page(problems.isEmpty ? .ok : .unprocessableContent, token: token, errors: errors)
        case .busy(let token):
            return page(
                .serviceUnavailable, ["Retry-After": "5"], token: token,
                message: "Quotebook is busy right now. Please try again in a few seconds.")
        case .dead:
            return DeadLinkView.page(retryURL: AccountsRoute.forgotForm.path, retryText: "Ask for a new link")
        }
    }

    private static func page(
        _ status: HTTPStatus, _ headers: HTTPHeaders = [:], token: String, errors: [String: TemplateValue] = [:], message: String? = nil
    ) -> Page {
        var values: [String: TemplateValue] = [
            "action": .string(AccountsRoute.reset.path), "token": .string(token), "fields": fieldNames,
            "hasErrors": .bool(!errors.isEmpty), "message": message.map(TemplateValue.string) ?? .null,
            "minimumLength": .int(AccountsController.minimumPasswordLength),
        ]
        values.merge(errors) { $1 }
        var allHeaders = headers
        allHeaders.add(name: "Cache-Control", value: "no-store")
        let context = TemplateValue.object(values)
        return Page(template: .passwordReset, status: status, headers: allHeaders, context: context)
    }
}

/// A mail link that is unknown, used, expired, replaced by a newer one or for another purpose:
/// 410, and a way to ask for a new one.
enum DeadLinkView {
    static func page(retryURL: String, retryText: String) -> Page {
        Page(
            template: .linkDead, status: .gone,
            context: TemplateValue.object([
                "heading": .string("This link is no longer valid"),
                "message": .string(
                    "A link from our mail works once, for 30 minutes, and only the newest one sent works. "
                        + "It also stops working when the password changes."),
                "retryURL": .string(retryURL), "retryText": .string(retryText),
            ]))
    }

    /// The address of a verification link was verified by another account first (409).
    static func takenByAnother() -> Page {
        Page(
            template: .linkDead, status: .conflict,
            context: TemplateValue.object([
                "heading": .string("This address belongs to another account"),
                "message": .string("Another Quotebook account has verified this address, so it cannot be yours too."),
                "retryURL": .string(ProfilesRoute.emailForm.path), "retryText": .string("Give another address"),
            ]))
    }
}

import HTTPServer
import Store
import Templates

/// Renders ``PasswordFormState``: the change-password form (200; 422 with a message per wrong
/// field; 429 after too many wrong current passwords for the username; 503 when the hashing
/// queue is full). Passwords are never written back into the page.
package enum PasswordView {
    static let fieldNames = FormFieldNames.of(PasswordField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let errors: [PasswordField: String]
        /// Why the form came back though nothing in it was wrong.
        let message: String?

        var templateValue: TemplateValue {
            var values: [String: TemplateValue] = [
                "action": .string(ProfilesRoute.changePassword.path), "sessionsURL": .string(ProfilesRoute.sessions.path),
                "editURL": .string(ProfilesRoute.edit.path), "hasErrors": .bool(!errors.isEmpty),
                "message": message.map(TemplateValue.string) ?? .null, "fields": PasswordView.fieldNames,
                "minimumLength": .int(AccountsController.minimumPasswordLength),
            ]
            for field in PasswordField.allCases {
                values[String(describing: field) + "Error"] = errors[field].map(TemplateValue.string) ?? .null
            }
            return .object(values)
        }
    }

    package static func page(for state: PasswordFormState) -> Page {
        switch state {
        case .editing(let problems):
            return page(
                problems.isEmpty ? .ok : .unprocessableContent,
                errors: Dictionary(uniqueKeysWithValues: problems.map { ($0.key, message(for: $0.value)) }))
        case .refused(let refusal):
            let (status, headers, message) = OwnPasswordRefusalText.status(for: refusal)
            return page(status, headers, message: message)
        }
    }

    private static func page(
        _ status: HTTPStatus, _ headers: HTTPHeaders = [:], errors: [PasswordField: String] = [:], message: String? = nil
    ) -> Page {
        Page(template: .profilePassword, status: status, headers: headers, context: Context(errors: errors, message: message))
    }

    /// The sentence shown beside the field that has `problem`.
    package static func message(for problem: PasswordProblem) -> String {
        switch problem {
        case .wrongCurrentPassword: "That is not your current password. Please try again."
        case .forbiddenCharacter(let scalar): TypedTextMessage.forbidden(scalar, in: "your password")
        case .tooShort: "Please choose a password of at least \(AccountsController.minimumPasswordLength) characters."
        case .confirmationMismatch: "The two passwords differ. Please type the same new password twice."
        }
    }
}

import HTTPServer
import Store
import Templates

/// Renders ``AccountDeletionFormState``: what deleting the account does and the password to
/// confirm it (200; 422 after a wrong password; 429 after too many; 503 when the hashing queue
/// is full). The password is never written back into the page.
package enum AccountDeletionView {
    static let fieldNames = FormFieldNames.of(AccountDeletionField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let passwordError: String?
        /// Why the form came back though nothing in it was wrong.
        let message: String?

        var templateValue: TemplateValue {
            .object([
                "action": .string(ProfilesRoute.deleteAccount.path), "editURL": .string(ProfilesRoute.edit.path),
                "fields": AccountDeletionView.fieldNames,
                "passwordError": passwordError.map(TemplateValue.string) ?? .null,
                "message": message.map(TemplateValue.string) ?? .null,
            ])
        }
    }

    package static func page(for state: AccountDeletionFormState) -> Page {
        switch state {
        case .confirming(let wrongPassword):
            return wrongPassword
                ? page(.unprocessableContent, passwordError: PasswordView.message(for: .wrongCurrentPassword))
                : page(.ok)
        case .refused(let refusal):
            let (status, headers, message) = OwnPasswordRefusalText.status(for: refusal)
            return page(status, headers, message: message)
        }
    }

    private static func page(
        _ status: HTTPStatus, _ headers: HTTPHeaders = [:], passwordError: String? = nil, message: String? = nil
    ) -> Page {
        Page(template: .profileDelete, status: status, headers: headers, context: Context(passwordError: passwordError, message: message))
    }
}

import HTTPServer
package import Store
import Templates

/// Renders ``QuoteEditState``: the edit form (200, or 422 with a message per wrong field), the
/// conflict page (409) with both texts, or the saved quote.
package enum QuoteEditView {
    static let fieldNames = FormFieldNames.of(QuoteFormField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let form: FormContext
        let conflict: QuoteCard?

        var templateValue: TemplateValue {
            .object(["form": form.templateValue, "conflict": conflict?.templateValue ?? .null])
        }
    }

    /// The form's fields as typed, where it posts, and a message per wrong field.
    struct FormContext: Sendable, TemplateValueConvertible {
        let heading: String
        let submitLabel: String
        let action: String
        let cancelURL: String
        let text: String
        let author: String
        /// The version an edit started from; nil when adding a quote.
        let version: Int?
        let textError: String?
        let authorError: String?
        let hasErrors: Bool

        var templateValue: TemplateValue {
            .object([
                "heading": .string(heading), "submitLabel": .string(submitLabel),
                "action": .string(action), "cancelURL": .string(cancelURL), "text": .string(text),
                "author": .string(author), "version": version.map(TemplateValue.int) ?? .null,
                "textError": textError.map(TemplateValue.string) ?? .null,
                "authorError": authorError.map(TemplateValue.string) ?? .null, "hasErrors": .bool(hasErrors),
                "fields": QuoteEditView.fieldNames,
            ])
        }
    }

    package static func page(for state: QuoteEditState) -> Page {
        switch state {
        case let .editing(form, problems):
            Page(
                template: .quoteEdit,
                status: problems.isEmpty ? .ok : .unprocessableContent,
                context: Context(form: formContext(form, problems: problems), conflict: nil)
            )
        case let .conflict(current, mine):
            Page(
                template: .quoteEdit,
                status: .conflict,
                context: Context(form: formContext(mine, problems: [:]), conflict: QuoteCard(current))
            )
        case .saved(let quote):
            QuoteView.page(for: .showing(quote, addedBy: nil, isFavourite: false, canDelete: false))
        case .notFound:
            ErrorView.page(for: .notFound)
        }
    }

    /// The form to add a quote (``NewQuoteState/composing(_:problems:)``): 200 when first
    /// opened, 422 with a message per wrong field and everything typed kept.
    package static func newQuotePage(_ draft: QuoteDraft, problems: [QuoteField: FieldProblem]) -> Page {
        Page(
            template: .quoteEdit,
            status: problems.isEmpty ? .ok : .unprocessableContent,
            context: Context(
                form: formContext(
                    heading: "Add a quote", submitLabel: "Add quote", action: QuotesRoute.create.path,
                    cancelURL: QuotesRoute.list(page: 1).path, draft: draft, version: nil, problems: problems),
                conflict: nil))
    }

    private static func formContext(_ form: QuoteForm, problems: [QuoteField: FieldProblem]) -> FormContext {
        formContext(
            heading: "Edit quote", submitLabel: "Save", action: QuotesRoute.update(form.id).path,
            cancelURL: QuotesRoute.show(form.id).path, draft: form.draft, version: form.version, problems: problems)
    }

    private static func formContext(
        heading: String, submitLabel: String, action: String, cancelURL: String, draft: QuoteDraft, version: Int?,
        problems: [QuoteField: FieldProblem]
    ) -> FormContext {
        FormContext(
            heading: heading, submitLabel: submitLabel, action: action, cancelURL: cancelURL,
            text: draft.text, author: draft.author, version: version,
            textError: problems[.text].map { message(for: $0, field: "the quote's text") },
            authorError: problems[.author].map { message(for: $0, field: "who said it") },
            hasErrors: !problems.isEmpty
        )
    }

    /// The sentence shown beside a wrong field.
    package static func message(for problem: FieldProblem, field: String) -> String {
        switch problem {
        case .empty: "Please enter \(field)."
        case .tooLong(let maximum): "Please keep \(field) to \(maximum) characters or fewer."
        case .tooLarge: "Please shorten \(field): it has too many accents or marks for its length."
        case .forbiddenCharacter(let scalar): TypedTextMessage.forbidden(scalar, in: field)
        }
    }
}

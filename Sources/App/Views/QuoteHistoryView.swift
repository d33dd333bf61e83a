import HTTPServer
import Store
import Templates

/// Renders ``QuoteHistoryState``: every version newest first, each with who made it and when,
/// and a *Restore* form on every version but the current one when the viewer is signed in.
package enum QuoteHistoryView {
    static let fieldNames = FormFieldNames.of(QuoteFormField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let versions: [VersionContext]
        let restoreURL: String?

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "versions": .list(versions.map(\.templateValue)),
                "restoreURL": restoreURL.map(TemplateValue.string) ?? .null, "fields": QuoteHistoryView.fieldNames,
            ])
        }
    }

    /// One version as the page shows it.
    struct VersionContext: Sendable, TemplateValueConvertible {
        let version: Int
        let text: String
        let author: String
        let editor: String
        let editorURL: String?
        let editedAt: String
        let editedAtISO: String
        let isCurrent: Bool
        let isFirst: Bool
        let restoredFrom: Int?
        /// Set on versions the viewer may restore (signed in, not the current one).
        let restoreURL: String?

        var templateValue: TemplateValue {
            .object([
                "version": .int(version), "text": .string(text), "author": .string(author), "editor": .string(editor),
                "editorURL": editorURL.map(TemplateValue.string) ?? .null, "editedAt": .string(editedAt),
                "editedAtISO": .string(editedAtISO), "isCurrent": .bool(isCurrent), "isFirst": .bool(isFirst),
                "restoredFrom": restoredFrom.map(TemplateValue.int) ?? .null,
                "restoreURL": restoreURL.map(TemplateValue.string) ?? .null,
            ])
        }
    }

    package static func page(for state: QuoteHistoryState) -> Page {
        switch state {
        case let .showing(quote, versions, canRestore):
            let restoreURL = canRestore ? QuotesRoute.restore(quote.id).path : nil
            return Page(
                template: .quoteHistory,
                context: Context(
                    quote: QuoteCard(quote),
                    versions: versions.map { entry in
                        let version = entry.version
                        let isCurrent = version.version == quote.version
                        return VersionContext(
                            version: version.version, text: version.text, author: version.author,
                            editor: entry.editor?.displayName ?? (version.editedBy == nil ? "no one" : "a member"),
                            editorURL: entry.editor.map { ProfilesRoute.show($0.username).path },
                            editedAt: DateText.readable(version.editedAt), editedAtISO: DateText.machine(version.editedAt),
                            isCurrent: isCurrent, isFirst: version.version == 1, restoredFrom: version.restoredFrom,
                            restoreURL: isCurrent ? nil : restoreURL)
                    },
                    restoreURL: restoreURL))
        case .notFound:
            return ErrorView.page(for: .notFound)
        }
    }
}

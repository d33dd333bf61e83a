import HTTPServer
import Store
import Templates

/// Renders ``QuoteHistoryState``: a page of versions newest first, each with who made it and
/// when, a *Restore* form on every version but the current one when the viewer is signed in, and
/// links to the newer and older pages; or a 404 page naming how many pages there are.
package enum QuoteHistoryView {
    static let fieldNames = FormFieldNames.of(QuoteFormField.self)

    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let versions: [VersionContext]
        let restoreURL: String?
        let page: Int
        let pageCount: Int
        /// The page of newer versions (`rel="prev"`), nil on the first.
        let newerURL: String?
        /// The page of older versions (`rel="next"`), nil on the last.
        let olderURL: String?

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "versions": .list(versions.map(\.templateValue)),
                "restoreURL": restoreURL.map(TemplateValue.string) ?? .null, "fields": QuoteHistoryView.fieldNames,
                // The list counts down from the newest version on the page.
                "newestVersion": .int(versions.first?.version ?? 0), "pageNumber": .int(page), "pageCount": .int(pageCount),
                "isPaged": .bool(pageCount > 1), "newerURL": newerURL.map(TemplateValue.string) ?? .null,
                "olderURL": olderURL.map(TemplateValue.string) ?? .null,
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

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``): a version of
    /// a quote never changes once written, so its number names it; its editor's name can, so
    /// each editor's values follow, once each, in the order they first appear.
    static func sharedKey(quote: Quote, versions: HistoryVersions, page: Int, pageCount: Int, canRestore: Bool) -> PageContentKey {
        // Field by field from the versions as read: copying a version out copies its text.
        let read = versions.oldestFirst
        // Room for every number and, at a guess, each editor's names and photo addresses, so
        // the key is not regrown while it is built.
        var key = PageContentKey(capacity: 19 + 2 * read.count + 6 * versions.users.count, textBytes: 96 * versions.users.count)
        key.append(page)
        key.append(pageCount)
        key.append(canRestore ? 1 : 0)
        key.append(quote)
        // Each editor once, newest first, by raw id: compared as Ints, no generic `==`.
        var editors: [Int] = []
        editors.reserveCapacity(versions.users.count)
        for position in read.indices.reversed() {
            key.append(read[position].version)
            guard let editor = read[position].editedBy?.rawValue else {
                key.append(-1)
                continue
            }
            key.append(editor)
            if !editors.contains(editor) { editors.append(editor) }
        }
        for editor in editors { key.append(versions.users[UserID(editor)]) }
        return key
    }

    /// What the template shows; made only when the page is rendered whole (``Page/context``).
    private static func context(quote: Quote, versions: HistoryVersions, page: Int, pageCount: Int, canRestore: Bool) -> Context {
        let restoreURL = canRestore ? QuotesRoute.restore(quote.id).path : nil
        return Context(
            quote: QuoteCard(quote),
            versions: versions.map { entry in
                let version = entry.version
                let isCurrent = version.version == quote.version
                return VersionContext(
                    version: version.version, text: version.text, author: version.author,
                    editor: entry.editor?.displayName ?? (version.editedBy == nil ? "no one" : "a former member"),
                    editorURL: entry.editor.map { ProfilesRoute.show($0.username).path },
                    editedAt: DateText.readable(version.editedAt), editedAtISO: DateText.machine(version.editedAt),
                    isCurrent: isCurrent, isFirst: version.version == 1, restoredFrom: version.restoredFrom,
                    restoreURL: isCurrent ? nil : restoreURL)
            },
            restoreURL: restoreURL, page: page, pageCount: pageCount,
            newerURL: page > 1 ? QuotesRoute.history(quote.id, page: page - 1).path : nil,
            olderURL: page < pageCount ? QuotesRoute.history(quote.id, page: page + 1).path : nil)
    }

    package static func page(for state: QuoteHistoryState) -> Page {
        switch state {
        case let .showing(quote, versions, page, pageCount, canRestore):
            return Page(
                template: .quoteHistory,
                context: context(quote: quote, versions: versions, page: page, pageCount: pageCount, canRestore: canRestore),
                sharedKey: sharedKey(quote: quote, versions: versions, page: page, pageCount: pageCount, canRestore: canRestore))
        case let .noSuchPage(quote, pageCount):
            let pages = "\(pageCount) page\(pageCount == 1 ? "" : "s")"
            let first = QuotesRoute.history(quote.id).path
            return ErrorView.page(
                for: .notFoundMessage("There is no such page of this quote’s history. It has \(pages); the first is at \(first)."))
        case .notFound:
            return ErrorView.page(for: .notFound)
        }
    }
}

import HTTPServer
package import Store
import Templates

/// Renders the moderators' pages: the queue (200, or 422 when a reason could not be kept) and
/// the log. Everything a person typed (quotes, reasons, names) is escaped by the templates.
package enum ModerationView {
    static let fieldNames = FormFieldNames.of(ModerationField.self)

    package static func page(for queue: ModerationQueue) -> Page {
        let reported: [TemplateValue] = queue.reported.items.map { item in
            let reports: [TemplateValue] = item.reports.map { entry in
                let values: [String: TemplateValue] = [
                    "reporter": .string(entry.reporter?.displayName ?? "a former member"),
                    "reason": .string(entry.report.reason), "at": .string(DateText.readable(entry.report.at)),
                    "atISO": .string(DateText.machine(entry.report.at)),
                    "dismissAction": .string(ModerationRoute.dismiss(entry.report.id).path),
                ]
                return .object(values)
            }
            let more = item.reportCount - item.reports.count
            let values: [String: TemplateValue] = [
                "quote": QuoteCard(item.quote, addedBy: item.addedBy).templateValue,
                "count": .int(item.reportCount), "several": .bool(item.reportCount > 1),
                "more": more > 0 ? .int(more) : .null,
                "hideAction": .string(ModerationRoute.hide(item.quote.id).path), "reports": .list(reports),
            ]
            return .object(values)
        }
        let message: TemplateValue = queue.problem.map { .string(QuoteEditView.message(for: $0, field: "the reason")) } ?? .null
        var values: [String: TemplateValue] = [
            "reported": .list(reported), "hasReported": .bool(!reported.isEmpty),
            "hidden": .list(queue.recentlyHidden.map(hiddenValue)), "hasHidden": .bool(!queue.recentlyHidden.isEmpty),
            "hiddenCount": .int(queue.hiddenCount),
            "allHiddenURL": queue.hiddenCount > queue.recentlyHidden.count ? .string(ModerationRoute.hidden().path) : .null,
            "message": message, "logURL": .string(ModerationRoute.log().path), "fields": fieldNames,
            "maximumReason": .int(ModerationState.maximumReasonLength),
        ]
        values.merge(pager(queue.reported) { ModerationRoute.queue(page: $0) }) { $1 }
        let context = TemplateValue.object(values)
        return Page(template: .moderation, status: queue.problem == nil ? .ok : .unprocessableContent, context: context)
    }

    package static func page(for hidden: ModerationPage<HiddenQuote>) -> Page {
        var values: [String: TemplateValue] = [
            "hidden": .list(hidden.items.map(hiddenValue)), "hasHidden": .bool(!hidden.items.isEmpty),
            "queueURL": .string(ModerationRoute.queue().path), "fields": fieldNames,
            "maximumReason": .int(ModerationState.maximumReasonLength),
        ]
        values.merge(pager(hidden) { ModerationRoute.hidden(page: $0) }) { $1 }
        let context = TemplateValue.object(values)
        return Page(template: .moderationHidden, context: context)
    }

    /// A hidden quote with why and when, and its *Bring back* form.
    private static func hiddenValue(_ item: HiddenQuote) -> TemplateValue {
        .object([
            "quote": QuoteCard(item.quote, addedBy: nil).templateValue, "reason": .string(item.note.reason),
            "at": .string(DateText.readable(item.note.at)), "atISO": .string(DateText.machine(item.note.at)),
            "unhideAction": .string(ModerationRoute.unhide(item.quote.id).path),
        ])
    }

    package static func page(for log: ModerationPage<ModerationLogLine>) -> Page {
        let lines: [TemplateValue] = log.items.map { line in
            let entry = line.entry
            let moderator = entry.note.by == nil ? "The operator" : line.moderator?.displayName ?? "A former member"
            let values: [String: TemplateValue] = [
                "moderator": .string(moderator), "what": .string(description(of: entry, user: line.user)),
                "reason": entry.note.reason.isEmpty ? .null : .string(entry.note.reason),
                "quoteURL": entry.quote.map { .string(QuotesRoute.show($0).path) } ?? .null,
                "at": .string(DateText.readable(entry.note.at)), "atISO": .string(DateText.machine(entry.note.at)),
            ]
            return .object(values)
        }
        var values: [String: TemplateValue] = [
            "lines": .list(lines), "hasLines": .bool(!lines.isEmpty), "queueURL": .string(ModerationRoute.queue().path),
        ]
        values.merge(pager(log) { ModerationRoute.log(page: $0) }) { $1 }
        let context = TemplateValue.object(values)
        return Page(template: .moderationLog, context: context)
    }

    /// The page links of a paged list, and where its numbering starts (``PagerValues``).
    private static func pager<Item>(_ page: ModerationPage<Item>, route: (Int) -> ModerationRoute) -> [String: TemplateValue] {
        PagerValues.of(page: page.page, pageCount: page.pageCount, firstNumber: page.firstNumber) { route($0).path }
    }

    /// What an entry did, in words (the quote, if any, is linked beside it).
    static func description(of entry: ModerationEntry, user: User?) -> String {
        let person = user.map { "\($0.displayName) (\($0.username))" } ?? "a former member"
        let quote = entry.quote.map { "quote \($0)" } ?? "a quote"
        switch entry.kind {
        case .roleGiven: return "made \(person) a moderator"
        case .roleTaken: return "made \(person) a member"
        case .reportDismissed: return "dismissed a report of \(quote)"
        case .quoteHidden: return "hid \(quote)"
        case .quoteUnhidden: return "brought back \(quote)"
        case .suspended: return "suspended \(person)"
        case .unsuspended: return "lifted the suspension of \(person)"
        case .reverted:
            let quotes = entry.reverted == 1 ? "1 quote" : "\(entry.reverted) quotes"
            return "reverted the edits of \(person): \(quotes) taken back, \(entry.hidden) hidden"
        }
    }
}

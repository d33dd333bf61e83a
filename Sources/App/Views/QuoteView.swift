package import HTTPServer
import Store
import Templates

/// Renders ``QuoteState``: the quote's page, with the actions the viewer may take.
package enum QuoteView {
    struct Context: Sendable, TemplateValueConvertible {
        let quote: QuoteCard
        let favouriteURL: String
        let isFavourite: Bool
        let historyURL: String
        /// Where the delete form posts; nil unless the viewer added the quote.
        let deleteURL: String?
        /// The quote's event stream, which the layout's live script (`site.liveScript`,
        /// `Public/live.js`) follows so the open page updates itself; without the script the page
        /// is the same and a reload shows changes.
        let eventsURL: String
        /// Where a signed-in person reports it to the moderators.
        let reportURL: String
        /// A sentence above the quote: thanks for a report, or why it was not taken.
        var notice: QuoteNotice? = nil

        var templateValue: TemplateValue {
            .object([
                "quote": quote.templateValue, "favouriteURL": .string(favouriteURL), "isFavourite": .bool(isFavourite),
                "historyURL": .string(historyURL), "deleteURL": deleteURL.map(TemplateValue.string) ?? .null,
                "eventsURL": .string(eventsURL), "reportURL": .string(reportURL),
                "reasonField": .string(ModerationField.reason.rawValue), "maximumReason": .int(ModerationState.maximumReasonLength),
                "notice": notice.map { .string($0.text) } ?? .null, "noticeIsError": .bool(notice?.isError ?? false),
            ])
        }
    }

    /// Everything the page shows but the visitor's own values (``Page/sharedKey``): whether it is
    /// their favourite and whether they may delete it are part of it.
    static func sharedKey(quote: Quote, addedBy: User?, isFavourite: Bool, canDelete: Bool) -> PageContentKey {
        // Room for every number and the adder's names and photo address, so the key is made once.
        var key = PageContentKey(capacity: 12, textBytes: addedBy == nil ? 0 : 128)
        key.append(isFavourite ? 1 : 0)
        key.append(canDelete ? 1 : 0)
        key.append(quote)
        key.append(addedBy)
        return key
    }

    /// `notice`: a sentence above the quote (after a report), under `status`.
    package static func page(for state: QuoteState, notice: QuoteNotice? = nil, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> Page {
        switch state {
        case let .showing(quote, addedBy, isFavourite, canDelete):
            var key = sharedKey(quote: quote, addedBy: addedBy, isFavourite: isFavourite, canDelete: canDelete)
            if let notice { key.append(notice.text) }
            return Page(
                template: .quote, status: status, headers: headers,
                context: Context(
                    quote: QuoteCard(quote, addedBy: addedBy), favouriteURL: QuotesRoute.favourite(quote.id).path,
                    isFavourite: isFavourite, historyURL: QuotesRoute.history(quote.id).path,
                    deleteURL: canDelete ? QuotesRoute.delete(quote.id).path : nil,
                    eventsURL: QuotesRoute.events(quote.id).path,
                    reportURL: QuotesRoute.report(quote.id).path, notice: notice),
                sharedKey: key)
        case let .hidden(quote, addedBy, note, hiddenBy):
            return Page(
                template: .quoteHidden, status: status, headers: headers,
                context: TemplateValue.object([
                    "quote": QuoteCard(quote, addedBy: addedBy).templateValue,
                    "hiddenBy": .string(hiddenBy?.displayName ?? "a former moderator"), "reason": .string(note.reason),
                    "at": .string(DateText.readable(note.at)), "atISO": .string(DateText.machine(note.at)),
                    "historyURL": .string(QuotesRoute.history(quote.id).path),
                    "unhideAction": .string(ModerationRoute.unhide(quote.id).path),
                    "reasonField": .string(ModerationField.reason.rawValue), "maximumReason": .int(ModerationState.maximumReasonLength),
                ]))
        case .notFound:
            return ErrorView.page(for: .notFound)
        }
    }

    /// The quote's page after a report (``ReportState``): thanks (200; 303 before it), the
    /// reason's problem (422) or the hourly limit (429).
    package static func page(for state: QuoteState, after report: ReportState) -> Page {
        switch report {
        case .reported:
            page(for: state, notice: QuoteNotice(text: "Thank you: the moderators will look at it.", isError: false))
        case .notFound:
            ErrorView.page(for: .notFound)
        case .invalidReason(let problem):
            page(
                for: state, notice: QuoteNotice(text: QuoteEditView.message(for: problem, field: "the reason"), isError: true),
                status: .unprocessableContent)
        case .limited(let seconds):
            page(
                for: state,
                notice: QuoteNotice(
                    text: "You have reported many quotes this hour. Please try again in \(WaitText.phrase(seconds: seconds)).", isError: true),
                status: .tooManyRequests, headers: ["Retry-After": String(seconds)])
        }
    }
}

/// A sentence shown above a quote.
package struct QuoteNotice: Sendable, Equatable {
    package var text: String
    package var isError: Bool
}

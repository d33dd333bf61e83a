package import HTTPServer
package import Store

/// The pages and actions of the quote book.
package enum QuotesRoute: Route {
    /// `GET /`: the favourite quote and the most recent ones.
    case home
    /// `GET /quotes?page=N&q=WORDS`: every quote (or those matching every word of `search`),
    /// newest first; `page` is 0 when the query's was not a positive number (the page then says
    /// there is no such page). An empty `search` is no search; it never holds a character a
    /// quote's text may not (``TypedText``: they are dropped, so the search box never echoes one).
    case list(page: Int, search: String = "")
    /// `GET /quotes/new`: the form to add a quote.
    case new
    /// `POST /quotes`: add a quote.
    case create
    /// `GET /quotes/{id}`
    case show(QuoteID)
    /// `GET /quotes/{id}/edit`
    case edit(QuoteID)
    /// `POST /quotes/{id}`: save an edit.
    case update(QuoteID)
    /// `POST /quotes/{id}/favorite`: make it the signed-in person's favourite.
    case favourite(QuoteID)
    /// `POST /quotes/{id}/delete`: only by the person who added it.
    case delete(QuoteID)
    /// `GET /quotes/{id}/history?page=N`: the quote's versions, newest first, a page at a time;
    /// `page` is 0 when the query's was not a positive number (the page then says there is no
    /// such page).
    case history(QuoteID, page: Int = 1)
    /// `POST /quotes/{id}/restore`: make the form's `version` current again, as a new version.
    case restore(QuoteID)
    /// `GET /quotes/{id}/events`: a `text/event-stream` of the quote's changes.
    case events(QuoteID)
    /// `POST /quotes/{id}/report` (`reason`): report it to the moderators; the quote's page then
    /// thanks the reporter (``PageNotice/reported(_:)``).
    case report(QuoteID)

    package static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<QuotesRoute> {
        switch segments.count {
        case 0:
            return [.home]
        case 1 where segments[0] == "quotes":
            // Characters no field may hold are ignored rather than refused: a search stores
            // nothing, and the words around them still find what they would.
            let search = TypedText.removingForbiddenScalars(from: query[QuoteSearchField.query.rawValue] ?? "", layout: .multiline)
            return [.list(page: PathSegments.page(in: query), search: search), .create]
        case 2 where segments[0] == "quotes" && segments[1] == "new":
            return [.new]
        case 2 where segments[0] == "quotes":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.show(id), .update(id)]
        case 3 where segments[0] == "quotes":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            switch segments[2] {
            case "edit": return [.edit(id)]
            case "favorite": return [.favourite(id)]
            case "delete": return [.delete(id)]
            case "history": return [.history(id, page: PathSegments.page(in: query))]
            case "restore": return [.restore(id)]
            case "events": return [.events(id)]
            case "report": return [.report(id)]
            default: return []
            }
        default:
            return []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .home, .list, .new, .show, .edit, .history, .events: .get
        case .create, .update, .favourite, .delete, .restore, .report: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .home: []
        case .list, .create: ["quotes"]
        case .new: ["quotes", "new"]
        case .show(let id), .update(let id): ["quotes", id.description]
        case .edit(let id): ["quotes", id.description, "edit"]
        case .favourite(let id): ["quotes", id.description, "favorite"]
        case .delete(let id): ["quotes", id.description, "delete"]
        case .history(let id, _): ["quotes", id.description, "history"]
        case .restore(let id): ["quotes", id.description, "restore"]
        case .events(let id): ["quotes", id.description, "events"]
        case .report(let id): ["quotes", id.description, "report"]
        }
    }

    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .list(let page, let search):
            (search.isEmpty ? [] : [(QuoteSearchField.query.rawValue, search)]) + PathSegments.pageItems(page)
        case .history(_, let page):
            PathSegments.pageItems(page)
        default: []
        }
    }

    package var access: RouteAccess {
        switch self {
        case .home, .list, .show, .history, .events: .anyone
        case .new, .create, .edit, .update, .favourite, .delete, .restore, .report: .signedIn
        }
    }

    /// Adding, editing, restoring or deleting a quote and marking a favourite; a report has its
    /// own limit (10 an hour).
    package var isMemberWrite: Bool {
        switch self {
        case .create, .update, .favourite, .delete, .restore: true
        case .home, .list, .new, .show, .edit, .history, .events, .report: false
        }
    }

    /// The request counters' name for this case (``RouteLabel``).
    package var metricsLabel: RouteLabel {
        switch self {
        case .home: "quotes_home"
        case .list: "quotes_list"
        case .new: "quotes_new"
        case .create: "quotes_create"
        case .show: "quotes_show"
        case .edit: "quotes_edit"
        case .update: "quotes_update"
        case .favourite: "quotes_favourite"
        case .delete: "quotes_delete"
        case .history: "quotes_history"
        case .restore: "quotes_restore"
        case .events: "quotes_events"
        case .report: "quotes_report"
        }
    }
}

package import HTTPServer
package import Store

/// The pages and actions of the quote book.
package enum QuotesRoute: Route {
    /// `GET /`: the favourite quote and the most recent ones.
    case home
    /// `GET /quotes?page=N`: every quote, newest first; `page` is 0 when the query's was not a
    /// positive number (the page then says there is no such page).
    case list(page: Int)
    /// `GET /quotes/{id}`
    case show(QuoteID)
    /// `GET /quotes/{id}/edit`
    case edit(QuoteID)
    /// `POST /quotes/{id}`: save an edit.
    case update(QuoteID)
    /// `POST /quotes/{id}/favorite`: make it the signed-in person's favourite.
    case favourite(QuoteID)

    package static func routes(at segments: [String], query: URLEncodedForm) -> [QuotesRoute] {
        switch segments.count {
        case 0:
            return [.home]
        case 1 where segments[0] == "quotes":
            guard let page = query["page"] else { return [.list(page: 1)] }
            return [.list(page: PathSegments.identifier(page) ?? 0)]
        case 2 where segments[0] == "quotes":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.show(id), .update(id)]
        case 3 where segments[0] == "quotes" && segments[2] == "edit":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.edit(id)]
        case 3 where segments[0] == "quotes" && segments[2] == "favorite":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.favourite(id)]
        default:
            return []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .home, .list, .show, .edit: .get
        case .update, .favourite: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .home: []
        case .list: ["quotes"]
        case .show(let id), .update(let id): ["quotes", id.description]
        case .edit(let id): ["quotes", id.description, "edit"]
        case .favourite(let id): ["quotes", id.description, "favorite"]
        }
    }

    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .list(let page) where page != 1: [("page", String(page))]
        default: []
        }
    }

    package var access: RouteAccess {
        switch self {
        case .home, .list, .show: .anyone
        case .edit, .update, .favourite: .signedIn
        }
    }
}

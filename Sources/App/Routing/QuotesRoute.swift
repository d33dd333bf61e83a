package import HTTPServer
package import Store

/// The pages and actions of the quote book.
package enum QuotesRoute: Route {
    /// `GET /`: the favourite quote and the most recent ones.
    case home
    /// `GET /quotes/{id}`
    case show(QuoteID)
    /// `GET /quotes/{id}/edit`
    case edit(QuoteID)
    /// `POST /quotes/{id}`: save an edit.
    case update(QuoteID)

    package static func routes(at segments: [String]) -> [QuotesRoute] {
        switch segments.count {
        case 0:
            return [.home]
        case 2 where segments[0] == "quotes":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.show(id), .update(id)]
        case 3 where segments[0] == "quotes" && segments[2] == "edit":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            return [.edit(id)]
        default:
            return []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .home, .show, .edit: .get
        case .update: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .home: []
        case .show(let id), .update(let id): ["quotes", id.description]
        case .edit(let id): ["quotes", id.description, "edit"]
        }
    }
}

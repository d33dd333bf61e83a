package import HTTPServer
package import Store

/// The moderators' pages and actions (SPEC.md "Moderation"): the queue of reports, the log, and
/// what moderators do to quotes. Every case is for moderators only (``RouteAccess/moderators``).
package enum ModerationRoute: Route {
    /// `GET /moderation?page=N`: open reports, grouped by quote, a page of quotes at a time, and
    /// the quotes hidden most recently.
    case queue(page: Int = 1)
    /// `GET /moderation/hidden?page=N`: every hidden quote, the most recently hidden first.
    case hidden(page: Int = 1)
    /// `GET /moderation/log?page=N`: every moderation action, newest first.
    case log(page: Int = 1)
    /// `POST /moderation/reports/{id}/dismiss`
    case dismiss(ReportID)
    /// `POST /quotes/{id}/hide` (`reason`)
    case hide(QuoteID)
    /// `POST /quotes/{id}/unhide` (`reason`)
    case unhide(QuoteID)
    /// `POST /users/{username}/suspend` (`reason`)
    case suspend(Username)
    /// `POST /users/{username}/unsuspend` (`reason`)
    case unsuspend(Username)
    /// `POST /users/{username}/revert` (`reason`)
    case revert(Username)

    package static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<ModerationRoute> {
        switch segments.count {
        case 1 where segments[0] == "moderation": return [.queue(page: PathSegments.page(in: query))]
        case 2 where segments[0] == "moderation" && segments[1] == "log": return [.log(page: PathSegments.page(in: query))]
        case 2 where segments[0] == "moderation" && segments[1] == "hidden": return [.hidden(page: PathSegments.page(in: query))]
        case 3 where segments[0] == "users":
            // Only the canonical (lower-case) spelling names a person, as for their profile.
            guard let name = Username(segments[1]), name.rawValue == segments[1] else { return [] }
            switch segments[2] {
            case "suspend": return [.suspend(name)]
            case "unsuspend": return [.unsuspend(name)]
            case "revert": return [.revert(name)]
            default: return []
            }
        case 3 where segments[0] == "quotes":
            guard let id = PathSegments.identifier(segments[1]).map({ QuoteID($0) }) else { return [] }
            switch segments[2] {
            case "hide": return [.hide(id)]
            case "unhide": return [.unhide(id)]
            default: return []
            }
        case 4 where segments[0] == "moderation" && segments[1] == "reports" && segments[3] == "dismiss":
            return PathSegments.identifier(segments[2]).map { [.dismiss(ReportID($0))] } ?? []
        default:
            return []
        }
    }

    package var method: HTTPMethod {
        switch self {
        case .queue, .hidden, .log: .get
        case .dismiss, .hide, .unhide, .suspend, .unsuspend, .revert: .post
        }
    }

    package var segments: [String] {
        switch self {
        case .queue: ["moderation"]
        case .hidden: ["moderation", "hidden"]
        case .log: ["moderation", "log"]
        case .dismiss(let id): ["moderation", "reports", String(id.rawValue), "dismiss"]
        case .hide(let id): ["quotes", String(id.rawValue), "hide"]
        case .unhide(let id): ["quotes", String(id.rawValue), "unhide"]
        case .suspend(let name): ["users", name.rawValue, "suspend"]
        case .unsuspend(let name): ["users", name.rawValue, "unsuspend"]
        case .revert(let name): ["users", name.rawValue, "revert"]
        }
    }

    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .queue(let page), .hidden(let page), .log(let page): PathSegments.pageItems(page)
        default: []
        }
    }

    package var access: RouteAccess { .moderators }

    /// Moderators are trusted: reverting a vandal may take many actions at once.
    package var isMemberWrite: Bool { false }

    /// A moderator's working pages, asked for rarely: always rendered, tagged from their bytes.
    package var isTaggedByState: Bool { false }

    package var metricsLabel: RouteLabel {
        switch self {
        case .queue: "moderation_queue"
        case .hidden: "moderation_hidden"
        case .log: "moderation_log"
        case .dismiss: "moderation_dismiss"
        case .hide: "moderation_hide"
        case .unhide: "moderation_unhide"
        case .suspend: "moderation_suspend"
        case .unsuspend: "moderation_unsuspend"
        case .revert: "moderation_revert"
        }
    }
}

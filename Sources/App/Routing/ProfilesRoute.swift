import Basics
package import HTTPServer
package import Store

/// People's profiles and the signed-in person's own.
package enum ProfilesRoute: Route {
    /// `GET /users/{username}?page={n}`: the profile, with page `n` (from 1) of the quotes they
    /// added, ``ProfileController/addedPerPage`` a page.
    case show(Username, page: Int = 1)
    /// `GET /users/{username}/photo?v={version}`: the photo's 512 px WebP. `version` names the
    /// photo the page showed (``PhotoResponse``): a URL that changes with the photo.
    case photo(Username, version: String? = nil)
    /// `GET /users/{username}/photo/small?v={version}`: the photo's 96 px WebP.
    case smallPhoto(Username, version: String? = nil)
    /// `GET /profile`: 303 to your own profile.
    case mine
    /// `GET /profile/edit`
    case edit
    /// `POST /profile/name`
    case updateName
    /// `POST /profile/photo` (`multipart/form-data`)
    case updatePhoto
    /// `POST /profile/photo/delete`
    case removePhoto
    /// `GET /profile/email`: your address and the form to set or change it.
    case emailForm
    /// `POST /profile/email`
    case changeEmail
    /// `GET /profile/password`
    case passwordForm
    /// `POST /profile/password`
    case changePassword
    /// `GET /profile/sessions`: your live sessions.
    case sessions
    /// `POST /profile/sessions/{id}/end`: `id` is the session's stored id (its token's SHA-256),
    /// never the token.
    case endSession(SessionHandle)
    /// `POST /profile/sessions/end-others`
    case endOtherSessions
    /// `GET /profile/delete`: what deleting the account does, and the form to confirm it.
    case deletionForm
    /// `POST /profile/delete`
    case deleteAccount
    /// `GET /profile/export`: your profile, quotes and versions as a JSON download.
    case export

    package static func routes(at segments: [String], query: URLEncodedForm) -> RouteCandidates<ProfilesRoute> {
        switch segments.count {
        case 2 where segments[0] == "users":
            return username(segments[1]).map { [.show($0, page: PathSegments.page(in: query))] } ?? []
        case 3 where segments[0] == "users" && segments[2] == "photo":
            return username(segments[1]).map { [.photo($0, version: query["v"])] } ?? []
        case 4 where segments[0] == "users" && segments[2] == "photo" && segments[3] == "small":
            return username(segments[1]).map { [.smallPhoto($0, version: query["v"])] } ?? []
        default:
            guard segments.first == "profile" else { return [] }
            // By count and by segment, not over array literals (see AccountsRoute).
            let rest = segments.dropFirst()  // a slice: no copy
            switch PathSegments.shape(of: rest) {
            case (0, _, _): return [.mine]
            case (1, "edit", _): return [.edit]
            case (1, "name", _): return [.updateName]
            case (1, "photo", _): return [.updatePhoto]
            case (2, "photo", "delete"): return [.removePhoto]
            case (1, "password", _): return [.passwordForm, .changePassword]
            case (1, "email", _): return [.emailForm, .changeEmail]
            case (1, "sessions", _): return [.sessions]
            case (2, "sessions", "end-others"): return [.endOtherSessions]
            case (1, "delete", _): return [.deletionForm, .deleteAccount]
            case (1, "export", _): return [.export]
            default:
                guard segments.count == 4, segments[1] == "sessions", segments[3] == "end", let handle = SessionHandle(segments[2]) else { return [] }
                return [.endSession(handle)]
            }
        }
    }

    /// Only the canonical (lower-case) spelling names a profile, so every page has one address.
    private static func username(_ segment: String) -> Username? {
        Username(segment).flatMap { $0.rawValue == segment ? $0 : nil }
    }

    package var method: HTTPMethod {
        switch self {
        case .show, .photo, .smallPhoto, .mine, .edit, .passwordForm, .emailForm, .sessions, .deletionForm, .export: .get
        case .updateName, .updatePhoto, .removePhoto, .changePassword, .changeEmail, .endSession, .endOtherSessions, .deleteAccount:
            .post
        }
    }

    package var segments: [String] {
        switch self {
        case .show(let name, _): ["users", name.rawValue]
        case .photo(let name, _): ["users", name.rawValue, "photo"]
        case .smallPhoto(let name, _): ["users", name.rawValue, "photo", "small"]
        case .mine: ["profile"]
        case .edit: ["profile", "edit"]
        case .updateName: ["profile", "name"]
        case .updatePhoto: ["profile", "photo"]
        case .removePhoto: ["profile", "photo", "delete"]
        case .passwordForm, .changePassword: ["profile", "password"]
        case .emailForm, .changeEmail: ["profile", "email"]
        case .sessions: ["profile", "sessions"]
        case .endSession(let handle): ["profile", "sessions", handle.text, "end"]
        case .endOtherSessions: ["profile", "sessions", "end-others"]
        case .deletionForm, .deleteAccount: ["profile", "delete"]
        case .export: ["profile", "export"]
        }
    }

    /// A new display name and removing the photo (each an action in the journal). A photo sent
    /// has its own limit (20 an hour), an address its mail's (3 an hour); sessions and deleting
    /// the account keep nothing that grows. A password change keeps an action too, but is never
    /// refused for writes a neighbour on the same address made: it is paced by its two hashes,
    /// within the address's share of the hashing pool.
    package var isMemberWrite: Bool {
        switch self {
        case .updateName, .removePhoto: true
        case .show, .photo, .smallPhoto, .mine, .edit, .passwordForm, .emailForm, .sessions, .deletionForm, .export, .updatePhoto,
            .changePassword, .changeEmail, .endSession, .endOtherSessions, .deleteAccount:
            false
        }
    }

    package var access: RouteAccess {
        switch self {
        case .show, .photo, .smallPhoto: .anyone
        case .mine, .edit, .updateName, .updatePhoto, .removePhoto, .passwordForm, .changePassword, .emailForm, .changeEmail,
            .sessions, .endSession, .endOtherSessions, .deletionForm, .deleteAccount, .export:
            .signedIn
        }
    }

    /// A photo's version, `v` in its query; a profile's page past the first.
    package var queryItems: [(name: String, value: String)] {
        switch self {
        case .photo(_, let version?), .smallPhoto(_, let version?): [("v", version)]
        case .show(_, let page): PathSegments.pageItems(page)
        default: []
        }
    }

    /// The sessions, email and edit pages show account storage (sessions, addresses), which
    /// changes without the state: tagged from their rendered bytes instead. The export is a
    /// download, never kept (`no-store`), so it has no tag to revalidate.
    package var isTaggedByState: Bool {
        switch self {
        case .sessions, .export, .emailForm, .edit: false
        default: true
        }
    }

    /// The request counters' name for this case (``RouteLabel``).
    package var metricsLabel: RouteLabel {
        switch self {
        case .show: "profiles_show"
        case .photo: "profiles_photo"
        case .smallPhoto: "profiles_small_photo"
        case .mine: "profiles_mine"
        case .edit: "profiles_edit"
        case .updateName: "profiles_update_name"
        case .updatePhoto: "profiles_update_photo"
        case .removePhoto: "profiles_remove_photo"
        case .passwordForm: "profiles_password_form"
        case .emailForm: "profiles_email_form"
        case .changeEmail: "profiles_change_email"
        case .changePassword: "profiles_change_password"
        case .sessions: "profiles_sessions"
        case .endSession: "profiles_end_session"
        case .endOtherSessions: "profiles_end_other_sessions"
        case .deletionForm: "profiles_deletion_form"
        case .deleteAccount: "profiles_delete_account"
        case .export: "profiles_export"
        }
    }
}

/// A session as its sign-out address names it: the stored id (SHA-256 of the token, so knowing
/// it signs no one in), as 64 lower-case hex digits.
package struct SessionHandle: Sendable, Hashable {
    package let id: [UInt8]

    package init(id: [UInt8]) { self.id = id }

    /// Only the canonical spelling names a session, so every form has one address.
    package init?(_ text: String) {
        guard text.utf8.count == 64, let id = Hex.decode(text), Hex.encode(id) == text else { return nil }
        self.id = id
    }

    package var text: String { Hex.encode(id) }
}

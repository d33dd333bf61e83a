import Foundation
import HTTPServer
import Store

/// Turns a ``ProfileExport`` into its download: the JSON document `quotebook-export-1`
/// (docs/export.md), attached under `quotebook-<username>.json`, never kept by any cache, with
/// the headers every page carries. It writes only what the export names: never the password
/// hash, a session or a CSRF token.
enum ExportView {
    /// The `format` of the document this writes; a change of shape gets a new one.
    static let format = "quotebook-export-1"

    static func response(for export: ProfileExport) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let body = try encoder.encode(Document(export))
        var headers = PageRenderer.securityHeaders
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        // Usernames are `a-z 0-9 _ -` only: nothing to escape in the quoted file name (RFC 6266 §4.1).
        headers.add(name: "Content-Disposition", value: "attachment; filename=\"quotebook-\(export.user.username.rawValue).json\"")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: .ok, headers: headers, body: Array(body))
    }

    /// The whole document. Optional fields are written as `null`, never left out.
    struct Document: Encodable {
        let export: ProfileExport

        init(_ export: ProfileExport) { self.export = export }

        enum Key: String, CodingKey {
            case format, exportedAt = "exported_at", profile, quotes, versions
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(ExportView.format, forKey: .format)
            try container.encode(DateText.machine(export.exportedAt), forKey: .exportedAt)
            try container.encode(ProfileFields(export), forKey: .profile)
            try container.encode(export.addedQuotes.map { AddedQuote($0, hidden: export.hiddenQuotes.contains($0.id)) }, forKey: .quotes)
            try container.encode(export.versions.map(Version.init), forKey: .versions)
        }
    }

    /// `profile`: who they are, their favourite and their photo's address.
    struct ProfileFields: Encodable {
        let username: String
        let displayName: String
        let joinedAt: String
        let favourite: Favourite?
        let hasPhoto: Bool
        let photoPath: String?
        let email: String?
        let pendingEmail: String?

        init(_ export: ProfileExport) {
            let user = export.user
            username = user.username.rawValue
            displayName = user.displayName
            joinedAt = DateText.machine(user.joinedAt)
            favourite = export.favourite.map(Favourite.init)
            hasPhoto = user.photo != nil
            photoPath = PhotoVersion.urls(of: user)?.large
            email = export.email.verified
            pendingEmail = export.email.pending
        }

        enum Key: String, CodingKey {
            case username, displayName = "display_name", joinedAt = "joined_at", favourite, hasPhoto = "has_photo"
            case photoPath = "photo_path", email, pendingEmail = "pending_email"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(username, forKey: .username)
            try container.encode(displayName, forKey: .displayName)
            try container.encode(joinedAt, forKey: .joinedAt)
            try container.encode(favourite, forKey: .favourite)
            try container.encode(hasPhoto, forKey: .hasPhoto)
            try container.encode(photoPath, forKey: .photoPath)
            try container.encode(email, forKey: .email)
            try container.encode(pendingEmail, forKey: .pendingEmail)
        }
    }

    /// `profile.favourite`: the quote as it reads now.
    struct Favourite: Encodable {
        let id: Int
        let text: String
        let author: String

        init(_ quote: Quote) {
            id = quote.id.rawValue
            text = quote.text
            author = quote.author
        }
    }

    /// One of `quotes`: a quote they added, as it reads now.
    struct AddedQuote: Encodable {
        let id: Int
        let text: String
        let author: String
        let addedAt: String
        let version: Int
        /// Moderators took it out of the book.
        let hidden: Bool

        init(_ quote: Quote, hidden: Bool) {
            id = quote.id.rawValue
            text = quote.text
            author = quote.author
            addedAt = DateText.machine(quote.addedAt)
            version = quote.version
            self.hidden = hidden
        }

        enum CodingKeys: String, CodingKey {
            case id, text, author, addedAt = "added_at", version, hidden
        }
    }

    /// One of `versions`: a version they made.
    struct Version: Encodable {
        let made: MadeVersion

        init(_ made: MadeVersion) { self.made = made }

        enum Key: String, CodingKey {
            case quoteID = "quote_id", version, kind, text, author, madeAt = "made_at", restoredFrom = "restored_from"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(made.quote.rawValue, forKey: .quoteID)
            try container.encode(made.version.version, forKey: .version)
            try container.encode(made.kind.rawValue, forKey: .kind)
            try container.encode(made.version.text, forKey: .text)
            try container.encode(made.version.author, forKey: .author)
            try container.encode(DateText.machine(made.version.editedAt), forKey: .madeAt)
            try container.encode(made.version.restoredFrom, forKey: .restoredFrom)
        }
    }
}

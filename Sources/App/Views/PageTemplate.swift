package import Templates

/// The templates the views render, one case per file in `Templates/` (`NAME.mustache`): views
/// name a case, never a string, and start-up checks the set is complete.
package enum PageTemplate: String, CaseIterable, Sendable {
    case layout
    case home
    case quote
    case quoteHidden = "quote_hidden"
    case quoteEdit = "quote_edit"
    case quoteHistory = "quote_history"
    case quotes
    case signUp = "signup"
    case signIn = "login"
    case profile
    case profileEdit = "profile_edit"
    case profilePassword = "profile_password"
    case profileSessions = "profile_sessions"
    case profileDelete = "profile_delete"
    case profileEmail = "profile_email"
    case emailVerify = "email_verify"
    case passwordForgot = "password_forgot"
    case passwordReset = "password_reset"
    /// A mail link that no longer works (410).
    case linkDead = "link_dead"
    case moderation
    case moderationLog = "moderation_log"
    case moderationHidden = "moderation_hidden"
    /// A partial: a person's verified and pending addresses (the email and edit pages).
    case emailStatus = "email_status"
    case error
    /// A partial: the hidden CSRF field every POST form includes.
    case csrfField = "csrf_field"
    /// A partial: a hidden quote with its *Bring back* form (the moderation pages).
    case hiddenQuote = "hidden_quote"
    /// A partial: the links between the pages of a moderator's list.
    case pager
    /// A partial: a person's photo (``PersonPhoto``), on profiles and beside the quotes they added.
    case photo

    /// Why `library` cannot serve the app: a page template it lacks, or a partial or parent tag
    /// naming a template that does not exist (which Mustache would silently render as nothing).
    /// Empty when every page can render.
    package static func problems(in library: TemplateLibrary) -> [String] {
        let missing = allCases.filter { !library.contains($0.rawValue) }.map { "no template \($0.rawValue).mustache" }
        return missing + library.unresolvedReferences.map(\.description)
    }
}

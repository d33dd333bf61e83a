import Basics
package import HTTPServer
import Store
package import Logging
package import Templates

/// Turns a ``Page`` into an HTML response: wraps the view's context with what the layout needs,
/// renders it, and adds the headers every HTML response carries (SPEC.md "Sessions and security").
package struct PageRenderer: Sendable {
    /// Where compiled templates come from: fixed at start-up, or re-read when files change (`--dev`).
    package enum Source: Sendable {
        case compiled(TemplateLibrary)
        case reloading(TemplateReloader)

        /// The library for templates as they are now (`--dev`: re-read if changed).
        /// - Throws: ``TemplateError`` when a changed template does not parse.
        func current() throws(TemplateError) -> TemplateLibrary {
            switch self {
            case .compiled(let library): library
            case .reloading(let reloader): try reloader.library()
            }
        }

        /// The newest library that compiled, without looking at the files.
        package var lastCompiled: TemplateLibrary {
            switch self {
            case .compiled(let library): library
            case .reloading(let reloader): reloader.lastCompiled
            }
        }
    }

    private let source: Source
    private let showsErrorDetails: Bool
    private let reloadsOnChange: Bool
    private let logger: Logger
    /// The layout's links, the stylesheet's and scripts' addresses among them (``LayoutContext/site(_:)``), made once.
    private let site: TemplateValue
    /// Keyed pages rendered once with holes for the visitor's values (not with `--dev`'s
    /// reloading templates, which may change under a key).
    private let skeletons: PageSkeletons?
    /// Each signed-in viewer's profile path (the layout links it on every page), made once per
    /// person: built on every request it was about 1.4 % of a signed-in page's CPU (a profile
    /// of `/`). Keyed by the server's own id (hashed cheaply, ``ServerIDHash``), and kept with
    /// the username it was made from, which a hit must match. At most ``profilePathLimit`` are
    /// kept; more make the cache start over.
    private let profilePaths = BoundedCache<UserID, (username: Username, path: String)>(countLimit: profilePathLimit)
    static let profilePathLimit = 4096

    /// - Parameters:
    ///   - showsErrorDetails: put template and server error details on error pages (`--dev` only).
    ///   - reloadsOnChange: every page loads `dev-reload.js`, which reloads it when a template or
    ///     public file changes (`--dev` only).
    ///   - assets: the addresses of the stylesheet and scripts pages link (versioned, but in `--dev`).
    package init(
        source: Source, showsErrorDetails: Bool, reloadsOnChange: Bool = false, assets: AssetAddresses = .unversioned, logger: Logger
    ) {
        self.source = source
        self.showsErrorDetails = showsErrorDetails
        self.reloadsOnChange = reloadsOnChange
        self.logger = logger
        site = LayoutContext.site(assets)
        if case .compiled = source { skeletons = PageSkeletons() } else { skeletons = nil }
    }

    /// Headers on every HTML response (SPEC.md "Sessions and security"): no plugin content
    /// (`object-src 'none'`), never framed (`frame-ancestors 'none'`, and `X-Frame-Options: DENY`
    /// for browsers that predate it).
    package static let securityHeaders = ([
        "Content-Security-Policy": "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    ] as HTTPHeaders).writtenOnce()

    package func response(for page: Page, visitor: Visitor = Visitor()) -> HTTPResponse {
        do {
            let html = try render(page, visitor: visitor)
            return htmlResponse(html, status: page.status, extra: page.headers)
        } catch {
            logger.error("rendering \(page.template) failed: \(error)")
            return faultResponse(error, visitor: visitor)
        }
    }

    private func render(_ page: Page, visitor: Visitor) throws -> [UInt8] {
        if let skeletons, let content = page.sharedKey, case .compiled(let library) = source {
            return try render(page, content: content, visitor: visitor, skeletons: skeletons, library: library)
        }
        return try render(page, visitor: visitor, with: source.current())
    }

    /// A keyed page: the skeleton shared by every visitor of its shape, made on first use, with
    /// this visitor's values spliced in (``PageSkeletons``).
    private func render(
        _ page: Page, content: PageContentKey, visitor: Visitor, skeletons: PageSkeletons, library: TemplateLibrary
    ) throws -> [UInt8] {
        let viewer = visitor.user.map {
            LayoutContext.Viewer(displayName: $0.displayName, profileURL: profilePath(of: $0), isModerator: visitor.isModerator)
        }
        let values = PageSkeletons.Values(
            displayName: viewer?.displayName ?? "", profileURL: viewer?.profileURL ?? "", csrfToken: visitor.csrfToken ?? "")
        // An empty value could make a section render differently from its non-empty marker.
        guard viewer == nil || !(values.displayName.isEmpty || values.profileURL.isEmpty), visitor.csrfToken?.isEmpty != true else {
            return try render(page, visitor: visitor, with: library)
        }
        let key = PageSkeletons.Key(
            template: page.template, status: page.status.code, content: content, isSignedIn: viewer != nil,
            isModerator: viewer?.isModerator ?? false, hasToken: visitor.csrfToken != nil)
        let skeleton: PageSkeletons.Skeleton
        if let kept = skeletons.skeleton(for: key) {
            skeleton = kept
        } else {
            let markers = skeletons.markers
            let rendered = try library.renderBytes(
                page.template.rawValue,
                context: LayoutContext(
                    page: page.context,
                    viewer: viewer.map { LayoutContext.Viewer(displayName: markers[0], profileURL: markers[1], isModerator: $0.isModerator) },
                    csrfToken: visitor.csrfToken.map { _ in markers[2] }, site: site, showsErrorDetails: showsErrorDetails,
                    reloadsOnChange: reloadsOnChange
                ).templateValue)
            skeleton = skeletons.skeleton(of: rendered)
            skeletons.store(skeleton, for: key)
        }
        return PageSkeletons.splice(skeleton, values: values)
    }

    /// The path of `user`'s profile, kept (``profilePaths``).
    private func profilePath(of user: User) -> String {
        if let kept = profilePaths.value(forKey: user.id), kept.username == user.username { return kept.path }
        let path = ProfilesRoute.show(user.username).path
        profilePaths.insert((user.username, path), forKey: user.id)
        return path
    }

    /// Keyed pages' skeletons held now (for tests).
    package var skeletonCount: Int { skeletons?.count ?? 0 }

    private func render(_ page: Page, visitor: Visitor, with library: TemplateLibrary) throws -> [UInt8] {
        try library.renderBytes(
            page.template.rawValue,
            context: LayoutContext(
                page: page.context, visitor: visitor, site: site, showsErrorDetails: showsErrorDetails, reloadsOnChange: reloadsOnChange
            ).templateValue)
    }

    /// The 500 page when a page itself fails to render. In `--dev` a template that no longer
    /// parses makes every fresh library fail, so the error page is rendered with the last
    /// library that compiled; plain text is the last resort.
    private func faultResponse(_ error: any Error, visitor: Visitor) -> HTTPResponse {
        let page = ErrorView.page(for: .serverFault(details: "\(error)"))
        if let html = try? render(page, visitor: visitor, with: source.lastCompiled) {
            return htmlResponse(html, status: page.status, extra: [:])
        }
        let text = showsErrorDetails ? "Internal Server Error\n\n\(error)\n" : "Internal Server Error\n"
        var response = HTTPResponse.text(text, status: .internalServerError)
        for (name, value) in Self.securityHeaders { response.headers.add(name: name, value: value) }
        return response
    }

    private func htmlResponse(_ html: [UInt8], status: HTTPStatus, extra: HTTPHeaders) -> HTTPResponse {
        var headers = Self.securityHeaders
        // Its own copy, made once with room for these two, the extra ones and an ETag
        // (PageTagMiddleware), rather than grown one field at a time (a page that sets cookies still
        // grows it for them).
        headers.reserveCapacity(adding: 3 + extra.count)
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        // A page that answers with an error has no ETag to revalidate with and is rarely asked
        // for again, so nothing may keep it at all.
        // A page that carries a secret (a mail link's token) says `no-store` itself.
        if extra["Cache-Control"] == nil { headers.add(name: "Cache-Control", value: status.code < 400 ? "private, no-cache" : "no-store") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        return HTTPResponse(status: status, headers: headers, body: html)
    }
}

/// What the layout sees: the site's navigation, who is signed in, the CSRF token for forms
/// (`{{> csrf_field}}`), the `--dev` reload script, and the page's own context under `page`.
/// Answers lookups directly (``TemplateObject``), so wrapping a page builds no dictionary.
///
/// The values the templates look up again and again are made once, here: a page's context as a
/// template value (a view's struct is boxed anew each time it is converted), the viewer's links.
struct LayoutContext: TemplateObject, TemplateValueConvertible {
    let page: TemplateValue
    let viewer: TemplateValue
    let csrf: TemplateValue
    let site: TemplateValue
    let showsErrorDetails: Bool
    let reloadsOnChange: Bool

    /// The signed-in person's values the layout shows.
    struct Viewer: Equatable {
        let displayName: String
        let profileURL: String
        /// The moderators' page, in a moderator's navigation only.
        var isModerator = false

        init(displayName: String, profileURL: String, isModerator: Bool = false) {
            self.displayName = displayName
            self.profileURL = profileURL
            self.isModerator = isModerator
        }

        init(_ user: User, isModerator: Bool = false) {
            self.init(displayName: user.displayName, profileURL: ProfilesRoute.show(user.username).path, isModerator: isModerator)
        }
    }

    init(page: any TemplateValueConvertible & Sendable, visitor: Visitor, site: TemplateValue, showsErrorDetails: Bool, reloadsOnChange: Bool) {
        self.init(
            page: page, viewer: visitor.user.map { Viewer($0, isModerator: visitor.isModerator) }, csrfToken: visitor.csrfToken,
            site: site, showsErrorDetails: showsErrorDetails, reloadsOnChange: reloadsOnChange)
    }

    init(
        page: any TemplateValueConvertible & Sendable, viewer: Viewer?, csrfToken: String?, site: TemplateValue, showsErrorDetails: Bool,
        reloadsOnChange: Bool
    ) {
        self.page = page.templateValue
        self.viewer =
            viewer.map { viewer in
                .object([
                    "displayName": .string(viewer.displayName),
                    "profileURL": .string(viewer.profileURL),
                    "signOutURL": .string(AccountsRoute.signOut.path),
                    "moderationURL": viewer.isModerator ? .string(ModerationRoute.queue().path) : .null,
                ])
            } ?? .null
        csrf = csrfToken.map { .object(["field": .string(CSRFField.token.rawValue), "token": .string($0)]) } ?? .null
        self.site = site
        self.showsErrorDetails = showsErrorDetails
        self.reloadsOnChange = reloadsOnChange
    }

    func value(forKey key: String) -> TemplateValue? {
        switch key {
        case "page": page
        case "site": site
        case "viewer": viewer
        case "csrf": csrf
        case "showsErrorDetails": .bool(showsErrorDetails)
        case "development": reloadsOnChange ? Self.development : .null
        default: nil
        }
    }

    /// The `--dev` script and the stream it follows, generated from routes.
    private static let development = TemplateValue.object([
        "script": .string(PublicAsset.developmentReload.path),
        "eventsURL": .string(SystemRoute.developmentEvents.path),
    ])

    /// Links in the layout's navigation, generated from routes, and the addresses of the
    /// stylesheet and of the live quote page's script (which the quote page links as
    /// `site.liveScript`): made once per renderer.
    static func site(_ assets: AssetAddresses) -> TemplateValue {
        .object([
            "home": .string(QuotesRoute.home.path),
            "quotes": .string(QuotesRoute.list(page: 1).path),
            "newQuote": .string(QuotesRoute.new.path),
            "signIn": .string(AccountsRoute.signInForm(returnTo: nil).path),
            "signUp": .string(AccountsRoute.signUpForm.path),
            "stylesheet": .string(assets[.stylesheet]),
            "liveScript": .string(assets[.liveQuote]),
        ])
    }
}

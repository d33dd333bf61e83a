package import HTTPServer

/// The app's cookies by purpose, named and marked as `--secure-cookies` asks: the one place their
/// names are spelled, for setting and for reading alike.
///
/// With `--secure-cookies` every name carries the `__Host-` prefix (RFC 6265bis §4.1.3.2), and
/// every cookie is `Secure`, `Path=/` and has no `Domain` (``SetCookie`` never sets one), as the
/// prefix demands: a browser then accepts the cookie only from this very host over HTTPS, so
/// neither a sibling subdomain nor a plain-HTTP answer can plant or overwrite a session, a
/// pre-session binding or a journal position. Reading asks for the prefixed name only: a cookie
/// without the prefix could have come from anywhere, so it is ignored (after switching the option
/// on, people sign in once more). Without the option the names are the plain ones, because
/// browsers refuse a `__Host-` cookie that is not `Secure`.
package struct AppCookies: Sendable {
    /// What a cookie is for; the raw value is its name without the prefix.
    package enum Purpose: String, Sendable, CaseIterable {
        /// The session token (``SessionKeeper``).
        case session = "quotebook_session"
        /// The value signed-out forms' CSRF tokens are bound to (``CSRFProtection``): 128 random
        /// bits, for the browser session.
        case preSession = "quotebook_presession"
        /// The journal position of the visitor's last save (``SeenWriteCookie``).
        case seen = "quotebook_seen"
        /// The account this browser has signed in to (``KnownDeviceCookie``): its sign-ins meet a
        /// limit of their own, not the username's lock.
        case knownDevice = "quotebook_device"
        /// A sentence for the page a redirect leads to, read once (``PageNotice``).
        case notice = "quotebook_notice"
    }

    /// The prefix of every name with `--secure-cookies`.
    package static let securePrefix = "__Host-"

    /// `--secure-cookies`: the app is served over HTTPS (by a proxy in front).
    package let isSecure: Bool
    /// Each purpose's name, made once (a prefixed name is longer than an inline string, so making
    /// it on every look-up allocated).
    private let sessionName: String
    private let preSessionName: String
    private let seenName: String
    private let knownDeviceName: String
    private let noticeName: String

    package init(isSecure: Bool) {
        self.isSecure = isSecure
        let prefix = isSecure ? Self.securePrefix : ""
        sessionName = prefix + Purpose.session.rawValue
        preSessionName = prefix + Purpose.preSession.rawValue
        seenName = prefix + Purpose.seen.rawValue
        knownDeviceName = prefix + Purpose.knownDevice.rawValue
        noticeName = prefix + Purpose.notice.rawValue
    }

    /// The name the cookie for `purpose` goes by.
    package func name(_ purpose: Purpose) -> String {
        switch purpose {
        case .session: sessionName
        case .preSession: preSessionName
        case .seen: seenName
        case .knownDevice: knownDeviceName
        case .notice: noticeName
        }
    }

    /// The value of the cookie for `purpose` among `cookies`, or nil.
    package func value(_ purpose: Purpose, in cookies: HTTPCookies) -> String? {
        cookies[name(purpose)]
    }

    /// Whether `cookies` has a cookie for `purpose` (making no string of its value).
    package func has(_ purpose: Purpose, in cookies: HTTPCookies) -> Bool {
        cookies.contains(name(purpose))
    }

    /// A `Set-Cookie` for `purpose` carrying `value`, kept `maxAge` seconds (nil: for the
    /// browser session).
    func setting(_ purpose: Purpose, to value: String, maxAge: Int? = nil) -> SetCookie {
        SetCookie(name: name(purpose), value: value, maxAge: maxAge, isSecure: isSecure)
    }

    /// A `Set-Cookie` that makes the browser delete the cookie for `purpose`.
    func deleting(_ purpose: Purpose) -> SetCookie {
        .deleting(name(purpose), isSecure: isSecure)
    }

    /// The session cookie for `token`, with the session's lifetime.
    func session(_ token: String) -> SetCookie {
        setting(.session, to: token, maxAge: Int(SessionKeeper.idleLifetime))
    }

    /// Whether `cookies` could carry a CSRF binding: a session cookie (which only storage may
    /// tell is live) or a well-formed pre-session cookie. A POST without either fails the CSRF
    /// check whatever its body says.
    func mayCarryCSRFBinding(_ cookies: HTTPCookies) -> Bool {
        if has(.session, in: cookies) { return true }
        guard let value = value(.preSession, in: cookies) else { return false }
        return CSRFProtection.isPreSessionValue(value)
    }
}

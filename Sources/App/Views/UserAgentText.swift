/// A `User-Agent` in a few words for the sessions page: "Firefox on Linux", "Safari on iOS".
/// Only well-known names are ever shown, so nothing the browser sent reaches the page as text.
package enum UserAgentText {
    /// Browsers by a token of theirs, the more specific first (Edge and Opera also say "Chrome",
    /// Chrome also says "Safari").
    private static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
        ("SamsungBrowser/", "Samsung Internet"), ("Chromium/", "Chromium"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"), ("curl/", "curl"), ("Wget/", "Wget"),
    ]
    /// Systems by a token of theirs, the more specific first (Android also says "Linux", iOS
    /// "like Mac OS X").
    private static let systems: [(token: String, name: String)] = [
        ("Windows", "Windows"), ("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"), ("CrOS", "ChromeOS"),
        ("Mac OS X", "macOS"), ("Macintosh", "macOS"), ("Linux", "Linux"), ("FreeBSD", "FreeBSD"),
    ]

    /// "Browser on System", either part "an unknown browser" / left out when not recognised.
    package static func summary(_ userAgent: String?) -> String {
        let text = userAgent ?? ""
        let browser = browsers.first { text.contains($0.token) }?.name
        let system = systems.first { text.contains($0.token) }?.name
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "A browser on \(system)"
        case (nil, nil): return "An unknown browser"
        }
    }
}

import App
import Testing

/// The sessions page's few words for a `User-Agent`.
@Suite struct UserAgentTextTests {
    @Test(arguments: [
        ("Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0", "Firefox on Linux"),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
         "Edge on Windows"),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
         "Chrome on macOS"),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
         "Chrome on Android"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
         "Safari on iOS"),
        ("curl/8.5.0", "curl"),
        ("Mozilla/5.0 (X11; Linux x86_64)", "A browser on Linux"),
        ("<script>", "An unknown browser"),
    ])
    func aKnownBrowserAndSystemAreNamed(userAgent: String, summary: String) {
        #expect(UserAgentText.summary(userAgent) == summary)
    }

    @Test func noUserAgentIsAnUnknownBrowser() {
        #expect(UserAgentText.summary(nil) == "An unknown browser")
    }
}

import App
import HTTPServer
import Testing

/// Every cookie's name comes from one place, prefixed `__Host-` with `--secure-cookies`, and is
/// read back by the name it was set under.
@Suite struct AppCookiesTests {
    @Test(arguments: AppCookies.Purpose.allCases)
    func namesCarryTheHostPrefixOnlyWhenSecure(_ purpose: AppCookies.Purpose) {
        #expect(AppCookies(isSecure: false).name(purpose) == purpose.rawValue)
        #expect(AppCookies(isSecure: true).name(purpose) == "__Host-" + purpose.rawValue)
        #expect(purpose.rawValue.hasPrefix("quotebook_"))
    }

    @Test func readingUsesTheNameOfTheMode() {
        let both = HTTPCookies(["Cookie": "quotebook_session=plain; __Host-quotebook_session=host"])
        #expect(AppCookies(isSecure: true).value(.session, in: both) == "host")
        #expect(AppCookies(isSecure: false).value(.session, in: both) == "plain")
        let plainOnly = HTTPCookies(["Cookie": "quotebook_presession=plain"])
        #expect(AppCookies(isSecure: true).value(.preSession, in: plainOnly) == nil)
        #expect(!AppCookies(isSecure: true).has(.preSession, in: plainOnly))
        #expect(AppCookies(isSecure: false).has(.preSession, in: plainOnly))
        #expect(!AppCookies(isSecure: false).has(.session, in: plainOnly))
        #expect(AppCookies(isSecure: true).has(.session, in: both))
    }
}

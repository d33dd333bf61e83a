import HTTPServer
import Testing

/// Header names compare ASCII letters without case, and every other byte exactly.
@Suite struct CaseInsensitiveEqualsTests {
    @Test(arguments: [
        ("Cookie", "cookie"), ("If-None-Match", "if-none-match"), ("X-FORWARDED-FOR", "x-forwarded-for"), ("", ""),
        ("a-much-longer-header-name-than-fits-inline", "A-MUCH-LONGER-HEADER-NAME-THAN-FITS-INLINE"),
    ])
    func lettersMatchInEitherCase(name: String, other: String) {
        #expect(name.caseInsensitiveEquals(other) && other.caseInsensitiveEquals(name))
    }

    /// Bytes 0x20 apart that are not letters (`@` and a backtick, `[` and `{`, `-` and `\r`),
    /// other lengths, and non-ASCII text with the same bit apart are all different.
    @Test(arguments: [
        ("@", "`"), ("[", "{"), ("-", "\r"), ("Cookie", "Cookies"), ("Cookie", "Cookif"), ("é", "É"), ("cookie", ""),
    ])
    func everythingElseMustBeEqual(name: String, other: String) {
        #expect(!name.caseInsensitiveEquals(other) && !other.caseInsensitiveEquals(name))
    }
}

import HTTPServer
import Testing

/// IMF-fixdate formatting and parsing (RFC 9110 §5.6.7).
@Suite struct HTTPDateTests {
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_305_600, "Sun, 22 Nov 2026 00:00:00 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func formatsAndParsesIMFFixdate(seconds: Int, text: String) {
        #expect(HTTPDate.format(secondsSinceEpoch: seconds) == text)
        #expect(HTTPDate.parse(text) == seconds)
    }

    @Test(arguments: [
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
    ])
    func rejectsOtherFormats(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

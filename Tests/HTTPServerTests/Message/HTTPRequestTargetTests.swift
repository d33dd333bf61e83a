import HTTPServer
import Testing

/// A request target split into path and query at its first `?`.
@Suite struct HTTPRequestTargetTests {
    @Test(arguments: [
        ("/", "/", nil), ("/quotes?q=ada", "/quotes", "q=ada"), ("/p?", "/p", ""), ("/p?a?b", "/p", "a?b"),
        ("http://example.com/p?x=1", "/p", "x=1"), ("http://example.com", "/", nil), ("http://example.com?x", "/", "x"),
    ] as [(String, String, String?)])
    func splitsAtTheFirstQuestionMark(target: String, path: String, query: String?) {
        let split = HTTPRequest.split(target: target)
        #expect(split.path == path)
        #expect(split.query == query)
    }

    /// By byte: a `?` followed by a combining mark is still the separator (looking for it by
    /// Character saw one grapheme, `?` with an accent, and no separator at all).
    @Test func aQuestionMarkBeforeACombiningMarkStillSplits() {
        let split = HTTPRequest.split(target: "/a?\u{301}b")
        #expect(split.path == "/a")
        #expect(split.query?.unicodeScalars.elementsEqual("\u{301}b".unicodeScalars) == true)
    }
}

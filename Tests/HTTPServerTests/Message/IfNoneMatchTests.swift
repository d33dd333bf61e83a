import HTTPServer
import Testing

/// `If-None-Match` under the weak comparison (RFC 9110 §13.1.2): in any of several fields, in a
/// list, with or without `W/`; `*` only when the caller knows the resource exists.
@Suite struct IfNoneMatchTests {
    private func request(_ fields: [String]) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "example.com")
        for field in fields { headers.add(name: "if-none-match", value: field) }
        return HTTPRequest(method: .get, target: "/", headers: headers)
    }

    @Test func namesTheTagInAnyFieldOrListEntry() {
        let tag = "W/\"abc\""
        #expect(request(["W/\"abc\""]).ifNoneMatch(includes: tag))
        #expect(request(["\"abc\""]).ifNoneMatch(includes: tag))
        #expect(request(["\"x\" , W/\"abc\""]).ifNoneMatch(includes: tag))
        #expect(request(["\"x\"", "\"y\", \"abc\""]).ifNoneMatch(includes: tag), "the second field")
        #expect(request(["\"abc\""]).ifNoneMatch(includes: "\"abc\""))
    }

    @Test func otherTagsAndNoFieldDoNotMatch() {
        #expect(!request([]).ifNoneMatch(includes: "W/\"abc\""))
        #expect(!request(["\"abd\""]).ifNoneMatch(includes: "W/\"abc\""))
        #expect(!request(["\"x\"", "\"y\""]).ifNoneMatch(includes: "\"abc\""))
        #expect(!request(["abc"]).ifNoneMatch(includes: "\"abc\""))
    }

    @Test func aStarMatchesOnlyWhenAllowed() {
        #expect(request(["*"]).ifNoneMatch(includes: "\"abc\""))
        #expect(!request(["*"]).ifNoneMatch(includes: "\"abc\"", starMatches: false))
        #expect(request(["*", "\"abc\""]).ifNoneMatch(includes: "\"abc\"", starMatches: false))
    }
}

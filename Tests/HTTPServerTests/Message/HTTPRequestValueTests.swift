import HTTPServer
import Testing

/// A request is a value though its fields share one box: a copy changed in any field leaves
/// the request it was copied from as it was, and the other way round.
@Suite struct HTTPRequestValueTests {
    private func request() -> HTTPRequest {
        HTTPRequest(method: .post, target: "/quotes?q=ada", headers: ["Host": "example.com"], body: Array("a=1".utf8))
    }

    @Test func aChangedCopyLeavesTheOriginal() {
        let original = request()
        var copy = original
        copy.headers.add(name: "Cookie", value: "s=1")
        copy.body.append(contentsOf: Array("&b=2".utf8))
        copy.method = .get
        copy.target = "/other"
        copy.path = "/other"
        copy.query = nil
        copy.version = .http1_0
        copy.bodyRefusal = .tooLarge(limit: 5)
        copy.client = IPAddress("10.0.0.1")
        #expect(original.headers["Cookie"] == nil && original.headers.count == 1)
        #expect(original.body == Array("a=1".utf8) && original.method == .post && original.version == .http1_1)
        #expect(original.target == "/quotes?q=ada" && original.path == "/quotes" && original.query == "q=ada")
        #expect(original.bodyRefusal == nil && original.client == nil)
        #expect(copy.headers["Cookie"] == "s=1" && copy.body == Array("a=1&b=2".utf8) && copy.method == .get)
        #expect(copy.target == "/other" && copy.path == "/other" && copy.query == nil && copy.version == .http1_0)
        #expect(copy.bodyRefusal == .tooLarge(limit: 5) && copy.client == IPAddress("10.0.0.1"))
    }

    @Test func theOriginalChangedLeavesItsCopy() {
        var original = request()
        let copy = original
        original.headers.set(name: "Host", value: "other.example")
        original.body = []
        #expect(copy.headers["Host"] == "example.com" && copy.body == Array("a=1".utf8))
        #expect(original.headers["Host"] == "other.example" && original.body.isEmpty)
    }
}

import HTTPServer
import Testing

/// Look-ups by name read the fields in place: every field of that name, in order, whatever the
/// case of its name, and a look-up that is answered stops there.
@Suite struct HTTPHeadersLookupTests {
    private let headers: HTTPHeaders = {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "example.com")
        headers.add(name: "cookie", value: "a=1")
        headers.add(name: "Accept", value: "*/*")
        headers.add(name: "COOKIE", value: "b=2")
        headers.add(name: "Cookie", value: "c=3")
        return headers
    }()

    @Test func everyValueOfANameInOrder() {
        #expect(headers.values(for: "Cookie") == ["a=1", "b=2", "c=3"])
        #expect(headers["cookie"] == "a=1")
        #expect(headers["HOST"] == "example.com")
        #expect(headers["Cookies"] == nil && headers.values(for: "Connection").isEmpty)
        #expect(headers.contains("accept") && !headers.contains("Accept-Encoding"))
    }

    @Test func anAnsweredLookUpStops() {
        var seen: [String] = []
        headers.forEachValue(for: "Cookie") { value in
            seen.append(value)
            return value != "b=2"
        }
        #expect(seen == ["a=1", "b=2"])
        var asked: [String] = []
        #expect(headers.containsValue(for: "cookie") { asked.append($0); return $0.hasPrefix("b") })
        #expect(asked == ["a=1", "b=2"])
        #expect(!headers.containsValue(for: "Cookie") { $0.hasPrefix("d") })
        #expect(!headers.containsValue(for: "Connection") { _ in true })
    }
}

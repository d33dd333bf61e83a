import HTTPServer
import Testing

/// The pure parser fed byte strings (RFC 9112), in one piece and byte by byte.
@Suite struct HTTPRequestParserTests {
    /// Runs the parser over `input` split into pieces of `pieceSize` bytes, the way a
    /// connection feeds it, and collects requests until a rejection or the end of input.
    static func parse(_ input: String, pieceSize: Int = .max, limits: HTTPLimits = HTTPLimits()) -> (
        requests: [HTTPRequest], heads: Int, rejection: HTTPRejection?
    ) {
        var parser = HTTPRequestParser(limits: limits)
        let bytes = Array(input.utf8)
        var buffer: [UInt8] = []
        var requests: [HTTPRequest] = []
        var heads = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + min(pieceSize, bytes.count))
            buffer.append(contentsOf: bytes[offset..<end])
            offset = end
            parsing: while true {
                let (event, consumed) = buffer.withUnsafeBufferPointer { parser.parse($0) }
                buffer.removeFirst(consumed)
                switch event {
                case .needMoreData: break parsing
                case .head: heads += 1
                case .request(let request): requests.append(request)
                case .reject(let rejection): return (requests, heads, rejection)
                }
            }
        }
        return (requests, heads, nil)
    }

    struct Valid: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var method: String
        var path: String
        var query: String?
        var body: String
        var testDescription: String { name }
    }

    static let valid: [Valid] = [
        Valid(name: "simple GET", input: "GET / HTTP/1.1\r\nHost: a\r\n\r\n", method: "GET", path: "/", query: nil, body: ""),
        Valid(
            name: "query", input: "GET /p?a=1&b HTTP/1.1\r\nHost: a\r\n\r\n", method: "GET", path: "/p", query: "a=1&b",
            body: ""),
        Valid(
            name: "content-length body", input: "POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
            method: "POST", path: "/f", query: nil, body: "abc"),
        Valid(
            name: "identical repeated content-length",
            input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nab", method: "POST",
            path: "/", query: nil, body: "ab"),
        Valid(
            name: "chunked with extension and trailer",
            input: "PUT /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n2;x=y\r\nab\r\nA\r\n0123456789\r\n0\r\nT: v\r\n\r\n",
            method: "PUT", path: "/c", query: nil, body: "ab0123456789"),
        Valid(
            name: "HTTP/1.0 without Host", input: "GET /old HTTP/1.0\r\n\r\n", method: "GET", path: "/old", query: nil,
            body: ""),
        Valid(
            name: "absolute-form", input: "GET https://ex.com:8080/a?b HTTP/1.1\r\nHost: ex.com\r\n\r\n", method: "GET",
            path: "/a", query: "b", body: ""),
        Valid(
            name: "asterisk-form", input: "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", method: "OPTIONS", path: "*", query: nil,
            body: ""),
        Valid(
            name: "OWS around value and empty value", input: "GET / HTTP/1.1\r\nHost:a\r\nX-E:\r\nX-T: \t v \t\r\n\r\n",
            method: "GET", path: "/", query: nil, body: ""),
        Valid(
            name: "obs-text in value", input: "GET / HTTP/1.1\r\nHost: a\r\nX-L: caf\u{E9}\r\n\r\n", method: "GET", path: "/",
            query: nil, body: ""),
        Valid(
            name: "leading empty line", input: "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", method: "GET", path: "/", query: nil,
            body: ""),
    ]

    @Test(arguments: valid)
    func parsesValidRequestWhole(_ testCase: Valid) throws {
        let result = Self.parse(testCase.input)
        #expect(result.rejection == nil)
        let request = try #require(result.requests.first)
        #expect(result.requests.count == 1)
        #expect(request.method.rawValue == testCase.method)
        #expect(request.path == testCase.path)
        #expect(request.query == testCase.query)
        #expect(String(decoding: request.body, as: UTF8.self) == testCase.body)
    }

    @Test(arguments: valid)
    func parsesValidRequestByteByByte(_ testCase: Valid) throws {
        let result = Self.parse(testCase.input, pieceSize: 1)
        #expect(result.rejection == nil)
        let request = try #require(result.requests.first)
        #expect(request.path == testCase.path)
        #expect(String(decoding: request.body, as: UTF8.self) == testCase.body)
    }

    @Test func keepsFieldNamesValuesAndOrder() throws {
        let result = Self.parse("GET / HTTP/1.1\r\nHost: a\r\nX-One: 1\r\nx-two:  2 \r\nX-One: 3\r\n\r\n")
        let request = try #require(result.requests.first)
        #expect(request.headers.fields.map(\.name) == ["Host", "X-One", "x-two", "X-One"])
        #expect(request.headers.values(for: "x-one") == ["1", "3"])
        #expect(request.headers["X-Two"] == "2")
    }

    /// The field list is made with room for a browser's fields at the first field, not grown
    /// from empty field by field (an allocation at the 2nd, 3rd, 5th and 9th), and a request of
    /// more fields than that still keeps them all.
    @Test func makesRoomForABrowsersFieldsAtTheFirstField() throws {
        let two = try #require(Self.parse("GET / HTTP/1.1\r\nHost: a\r\nCookie: b=c\r\n\r\n").requests.first)
        #expect(two.headers.fields.capacity >= 16)
        let names = (1...40).map { "X-Field-\($0)" }
        let many = try #require(Self.parse("GET / HTTP/1.1\r\nHost: a\r\n" + names.map { "\($0): v\r\n" }.joined() + "\r\n").requests.first)
        #expect(many.headers.fields.map(\.name) == ["Host"] + names)
    }

    @Test func parsesPipelinedRequestsInOrder() {
        let input =
            "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nxGET /3 HTTP/1.1\r\nHost: a\r\n\r\n"
        for pieceSize in [1, 7, 1000] {
            let result = Self.parse(input, pieceSize: pieceSize)
            #expect(result.requests.map(\.path) == ["/1", "/2", "/3"])
            #expect(result.heads == 3)
        }
    }

    @Test func emitsHeadBeforeBodyArrives() {
        let result = Self.parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        #expect(result.heads == 1)
        #expect(result.requests.isEmpty)
        #expect(result.rejection == nil)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var status: Int
        var testDescription: String { name }
    }

    static let invalid: [Invalid] = [
        Invalid(name: "no target", input: "GET HTTP/1.1\r\n", status: 400),
        Invalid(name: "tab separator", input: "GET\t/ HTTP/1.1\r\n", status: 400),
        Invalid(name: "trailing space", input: "GET / HTTP/1.1 \r\n", status: 400),
        Invalid(name: "target without slash", input: "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        Invalid(name: "control byte in target", input: "GET /\u{1}a HTTP/1.1\r\n", status: 400),
        Invalid(name: "HTTP/0.9 style", input: "GET /\r\n", status: 400),
        Invalid(name: "version 3.0", input: "GET / HTTP/3.0\r\n", status: 505),
        Invalid(name: "version garbage", input: "GET / HTTP/1.10\r\n", status: 400),
        Invalid(name: "lower-case method is unknown", input: "get / HTTP/1.1\r\nHost: a\r\n\r\n", status: 501),
        Invalid(name: "CONNECT", input: "CONNECT ex.com:443 HTTP/1.1\r\nHost: ex.com\r\n\r\n", status: 501),
        Invalid(name: "method with bad byte", input: "GE(T / HTTP/1.1\r\n", status: 400),
        Invalid(name: "missing Host", input: "GET / HTTP/1.1\r\n\r\n", status: 400),
        Invalid(name: "empty Host", input: "GET / HTTP/1.1\r\nHost:\r\n\r\n", status: 400),
        Invalid(name: "Host of only spaces", input: "GET / HTTP/1.1\r\nHost:   \r\n\r\n", status: 400),
        Invalid(name: "empty Host in HTTP/1.0", input: "GET / HTTP/1.0\r\nHost: \r\n\r\n", status: 400),
        Invalid(name: "repeated Host", input: "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", status: 400),
        Invalid(name: "Host with space", input: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", status: 400),
        Invalid(name: "empty field name", input: "GET / HTTP/1.1\r\n: v\r\n", status: 400),
        Invalid(name: "no colon", input: "GET / HTTP/1.1\r\nHost a\r\n", status: 400),
        Invalid(name: "space before colon", input: "GET / HTTP/1.1\r\nHost : a\r\n", status: 400),
        Invalid(name: "obs-fold", input: "GET / HTTP/1.1\r\nHost: a\r\n\tb\r\n", status: 400),
        Invalid(name: "NUL in value", input: "GET / HTTP/1.1\r\nX: a\u{0}\r\n", status: 400),
        Invalid(name: "bare CR in value", input: "GET / HTTP/1.1\r\nX: a\rb\r\n", status: 400),
        Invalid(name: "DEL in value", input: "GET / HTTP/1.1\r\nX: a\u{7F}\r\n", status: 400),
        Invalid(name: "bare LF", input: "GET / HTTP/1.1\nHost: a\n\n", status: 400),
        Invalid(name: "Content-Length letters", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", status: 400),
        Invalid(name: "Content-Length empty", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", status: 400),
        Invalid(name: "Content-Length plus", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\n", status: 400),
        Invalid(name: "Content-Length minus", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -3\r\n\r\n", status: 400),
        Invalid(
            name: "Content-Length overflow",
            input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 400),
        Invalid(
            name: "Content-Length list differs", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n",
            status: 400),
        Invalid(
            name: "Content-Length repeated differs",
            input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", status: 400),
        Invalid(
            name: "Content-Length with Transfer-Encoding",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", status: 400),
        Invalid(
            name: "Transfer-Encoding in HTTP/1.0", input: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400),
        Invalid(name: "gzip coding", input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501),
        Invalid(
            name: "gzip then chunked", input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            status: 501),
        Invalid(
            name: "chunked then gzip", input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            status: 501),
        Invalid(
            name: "chunk size not hex",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", status: 400),
        Invalid(
            name: "chunk size negative",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", status: 400),
        Invalid(
            name: "chunk size overflow",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", status: 400),
        Invalid(
            name: "chunk data too long",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", status: 400),
        Invalid(
            name: "chunk extension garbage",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1 x\r\n", status: 400),
        Invalid(
            name: "malformed trailer",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", status: 400),
        Invalid(
            name: "unknown expectation", input: "POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\n\r\n", status: 417),
        Invalid(name: "too many empty lines", input: String(repeating: "\r\n", count: 20), status: 400),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidRequest(_ testCase: Invalid) {
        for pieceSize in [1, .max] {
            let result = Self.parse(testCase.input, pieceSize: pieceSize)
            #expect(result.requests.isEmpty)
            #expect(result.rejection?.status.code == testCase.status, "piece size \(pieceSize)")
        }
    }

    @Test func staysFailedAfterRejection() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let bad = Array("BAD\r\n".utf8)
        let first = bad.withUnsafeBufferPointer { parser.parse($0) }
        guard case .reject = first.event else {
            Issue.record("expected a rejection")
            return
        }
        let good = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        let second = good.withUnsafeBufferPointer { parser.parse($0) }
        guard case .reject = second.event else {
            Issue.record("expected the parser to stay failed")
            return
        }
    }

    struct LimitCase: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var status: Int
        var testDescription: String { name }
    }

    static var smallLimits: HTTPLimits {
        var limits = HTTPLimits()
        limits.requestLine = 20
        limits.headerSection = 120
        limits.headerCount = 3
        limits.formBody = 5
        limits.uploadBody = 8
        return limits
    }

    static let limitCases: [LimitCase] = [
        LimitCase(name: "request line over limit", input: "GET /" + String(repeating: "a", count: 20) + " HTTP/1.1\r\n", status: 414),
        LimitCase(name: "request line over limit without CRLF", input: "GET /" + String(repeating: "a", count: 40), status: 414),
        LimitCase(
            name: "header section over limit", input: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 120) + "\r\n\r\n",
            status: 431),
        LimitCase(name: "unterminated field over limit", input: "GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 160), status: 431),
        LimitCase(name: "too many fields", input: "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", status: 431),
        LimitCase(name: "form body over limit", input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\n", status: 413),
        LimitCase(
            name: "upload body over limit",
            input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data\r\nContent-Length: 9\r\n\r\n", status: 413),
        LimitCase(
            name: "chunked body over limit",
            input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\n", status: 413),
    ]

    @Test(arguments: limitCases)
    func enforcesLimits(_ testCase: LimitCase) {
        for pieceSize in [1, .max] {
            let result = Self.parse(testCase.input, pieceSize: pieceSize, limits: Self.smallLimits)
            #expect(result.rejection?.status.code == testCase.status, "piece size \(pieceSize)")
        }
    }

    @Test func acceptsUploadBodyWithinUploadLimit() {
        let result = Self.parse(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: Multipart/Form-Data; b=1\r\nContent-Length: 8\r\n\r\n12345678",
            limits: Self.smallLimits)
        #expect(result.rejection == nil)
        #expect(result.requests.first?.body.count == 8)
    }
}

import Testing
@testable import HTTPServer

/// What ``HTTPConnectionMachine`` writes: answers by version and `Connection`, HEAD, streamed
/// bodies and their framing, `100 Continue`, and the rejections it answers itself.
@Suite struct HTTPConnectionMachineResponseTests {
    static let t0 = MachineDriver.start
    static let closeField = "Connection: close\r\n"

    /// One request answered with one response, and what must and must not be in the bytes.
    struct Answer: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var response: HTTPResponse
        var step: Step
        var after: HTTPConnectionMachine.Phase
        var contains: [String] = []
        var lacks: [String] = []
        var testDescription: String { name }
    }

    static let answers = [
        Answer(
            name: "HTTP/1.1 keep-alive", request: Wire.get("/"), response: .bytes("abc"), step: .send(200),
            after: .idle, contains: ["HTTP/1.1 200 OK\r\n", "Content-Length: 3\r\n", "\r\n\r\nabc"],
            lacks: ["Connection:"]),
        Answer(
            name: "responder says close", request: Wire.get("/"),
            response: .bytes("abc", headers: ["Connection": "close"]), step: .send(200), after: .closing,
            contains: [closeField]),
        Answer(
            name: "client says close", request: Wire.get("/", "Connection: close"), response: .bytes("abc"),
            step: .send(200), after: .closing, contains: [closeField]),
        Answer(
            name: "HTTP/1.0", request: Wire.message("GET / HTTP/1.0", []), response: .bytes("abc"),
            step: .send(200), after: .closing, contains: [closeField]),
        Answer(
            name: "HTTP/1.0 keep-alive", request: Wire.message("GET / HTTP/1.0", ["Connection: keep-alive"]),
            response: .bytes("abc"), step: .send(200), after: .idle, contains: ["Connection: keep-alive\r\n"],
            lacks: [closeField]),
        Answer(
            name: "HEAD", request: Wire.head("/"), response: .bytes("abc"), step: .send(200), after: .idle,
            contains: ["Content-Length: 3\r\n"], lacks: ["abc"]),
        Answer(
            name: "streamed", request: Wire.get("/"), response: .streamed(), step: .startStream, after: .streaming,
            contains: ["Transfer-Encoding: chunked\r\n"], lacks: ["Connection:", "Content-Length"]),
        Answer(
            name: "streamed, responder says close", request: Wire.get("/"),
            response: .streamed(headers: ["Connection": "close"]), step: .startStream, after: .streaming,
            contains: ["Transfer-Encoding: chunked\r\n", closeField]),
        Answer(
            name: "streamed to HTTP/1.0", request: Wire.message("GET / HTTP/1.0", ["Connection: keep-alive"]),
            response: .streamed(), step: .startStream, after: .streaming, contains: [closeField],
            lacks: ["Transfer-Encoding"]),
        Answer(
            name: "streamed to HEAD", request: Wire.head("/"), response: .streamed(), step: .send(200), after: .idle,
            contains: ["Transfer-Encoding: chunked\r\n"]),
        Answer(
            name: "streamed 204", request: Wire.get("/"), response: .streamed(status: .noContent), step: .send(204),
            after: .idle, contains: ["HTTP/1.1 204 No Content\r\n"], lacks: ["Transfer-Encoding"]),
    ]

    @Test(arguments: answers)
    func responseReady(_ answer: Answer) {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(answer.request, at: Self.t0)
        #expect(driver.phase == .responding)
        #expect(driver.respond(answer.response, at: Self.t0) == answer.step)
        #expect(driver.phase == answer.after)
        let bytes = driver.pending
        #expect(bytes.hasPrefix("HTTP/1.1 "))
        for text in answer.contains { #expect(bytes.contains(text), "\(text)") }
        for text in answer.lacks { #expect(!bytes.contains(text), "\(text)") }
    }

    // MARK: Streamed bodies

    @Test func streamedBodyIsChunkedAndEndsWithTheLastChunk() {
        var driver = MachineDriver.started(in: .streaming)
        let head = driver.written
        let sixteen = String(repeating: "x", count: 16)
        #expect(driver.streamed("hello", at: Self.t0) == .send(nil))
        #expect(driver.streamed(sixteen, at: Self.t0) == .send(nil))
        #expect(driver.pending == "5\r\nhello\r\n10\r\n\(sixteen)\r\n")
        let end = Self.t0 + .seconds(1)
        #expect(driver.streamEnded(at: end) == .finishStream(21))
        #expect(driver.phase == .idle)
        #expect(driver.flush(at: end) == .none)
        #expect(driver.written == head + "5\r\nhello\r\n10\r\n\(sixteen)\r\n0\r\n\r\n")
        #expect(driver.deadline == end + .seconds(60))
    }

    @Test func streamedBodyToHTTP10IsRawAndEndsByClosing() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.message("GET / HTTP/1.0", ["Connection: keep-alive"]), at: Self.t0)
        _ = driver.respond(.streamed(), at: Self.t0)
        _ = driver.flush(at: Self.t0)
        let head = driver.written
        #expect(driver.streamed("hello", at: Self.t0) == .send(nil))
        #expect(driver.streamEnded(at: Self.t0) == .finishStream(5))
        #expect(driver.phase == .closing)
        #expect(driver.flush(at: Self.t0) == .halfClose)
        #expect(driver.written == head + "hello")
    }

    @Test func streamThatMustCloseStillEndsWithTheLastChunk() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(.streamed(headers: ["Connection": "close"]), at: Self.t0)
        #expect(driver.streamEnded(at: Self.t0) == .finishStream(0))
        #expect(driver.phase == .closing)
        #expect(driver.pending.hasSuffix("\r\n\r\n0\r\n\r\n"))
        #expect(driver.flush(at: Self.t0) == .halfClose)
    }

    @Test func producerThatOverflowedIsAborted() {
        var driver = MachineDriver.started(in: .streaming)
        #expect(driver.streamEnded(overflowed: true, at: Self.t0) == .abort(.streamReaderTooSlow))
        #expect(driver.phase == .closed)
    }

    @Test func clientThatLeavesMoreThanTheStreamLimitUnsentIsAborted() {
        var driver = MachineDriver.started(in: .streaming)  // stream buffer limit 200
        _ = driver.streamed(String(repeating: "x", count: 194), at: Self.t0)  // "c2\r\n" + 194 + "\r\n"
        #expect(driver.pendingOutputCount == 200)
        #expect(driver.flush(at: Self.t0, accepting: 0) == .none)
        _ = driver.streamed("x", at: Self.t0)
        #expect(driver.flush(at: Self.t0, accepting: 0) == .abort(.streamReaderTooSlow))
        #expect(driver.phase == .closed)
    }

    // MARK: 100 Continue

    static let expectingHead = Wire.postHead("/upload", length: 5, "Expect: 100-continue")

    @Test func continueIsSentOnlyOnceTheBodyIsGranted() {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.received(Self.expectingHead, at: Self.t0) == .reserveBody(5))
        #expect(driver.pendingOutputCount == 0)
        #expect(driver.bodyGranted(at: Self.t0) == .send(nil))
        #expect(driver.flush(at: Self.t0) == .none)
        #expect(driver.written == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(driver.received("hello", at: Self.t0) == .dispatch("POST /upload"))
        #expect(driver.requests.last?.body == Array("hello".utf8))
    }

    @Test(arguments: [
        (expectingHead + "he", "body bytes came with the head"),
        (Wire.message("POST / HTTP/1.0", ["Content-Length: 5", "Expect: 100-continue"]), "HTTP/1.0"),
    ])
    func noContinue(_ head: String, _ because: String) {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.received(head, at: Self.t0) == .reserveBody(5))
        #expect(driver.bodyGranted(at: Self.t0) == .none)
        #expect(driver.phase == .body)
        #expect(driver.pendingOutputCount == 0, "\(because)")
    }

    @Test func noContinueWhenBodyBytesArriveWhileWaitingForTheBudget() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Self.expectingHead, at: Self.t0)
        _ = driver.received("hello", at: Self.t0)
        #expect(driver.bodyGranted(at: Self.t0) == .dispatch("POST /upload"))
        #expect(driver.pendingOutputCount == 0)
    }

    // MARK: Rejections

    /// A request the parser refuses, and the status line the machine answers it with.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: String
        var statusLine: String
        var testDescription: String { name }
    }

    static let refusals = [
        Refusal(name: "malformed request line", bytes: "GARBAGE\r\n", statusLine: "HTTP/1.1 400 Bad Request"),
        Refusal(name: "bare LF", bytes: "GET / HTTP/1.1\n", statusLine: "HTTP/1.1 400 Bad Request"),
        Refusal(name: "missing Host", bytes: Wire.message("GET / HTTP/1.1", []), statusLine: "HTTP/1.1 400 Bad Request"),
        Refusal(
            name: "unknown version", bytes: Wire.message("GET / HTTP/2.0", ["Host: x"]),
            statusLine: "HTTP/1.1 505 HTTP Version Not Supported"),
        Refusal(
            name: "unknown method", bytes: Wire.message("BREW / HTTP/1.1", ["Host: x"]),
            statusLine: "HTTP/1.1 501 Not Implemented"),
    ]

    @Test(arguments: refusals)
    func rejectionIsAnsweredThenTheConnectionLingers(_ refusal: Refusal) throws {
        var limits = HTTPLimits()
        limits.formBody = 1000
        var driver = MachineDriver(rules: .testing(limits: limits), now: Self.t0)
        let code = try #require(Int(refusal.statusLine.split(separator: " ")[1]))
        #expect(driver.received(refusal.bytes, at: Self.t0) == .reject(code))
        #expect(driver.reject(at: Self.t0) == .send(code))
        #expect(driver.phase == .closing)
        #expect(driver.deadline == Self.t0 + .seconds(30))
        #expect(driver.flush(at: Self.t0) == .halfClose)
        #expect(driver.phase == .lingering)
        #expect(driver.statusLines == [refusal.statusLine])
        #expect(driver.written.contains(Self.closeField))
        #expect(!driver.written.contains("Retry-After"))
        #expect(driver.received(Wire.get("/"), at: Self.t0) == .none)  // dropped
        #expect(driver.endOfInput(at: Self.t0) == .close(.lingerEnded))
    }

    /// A body over its limit is refused, not the request: the responder answers from the head
    /// (``HTTPRequest/bodyRefusal``), what follows of the body is dropped as it comes, and the
    /// connection lingers after the answer so the client that kept sending can read it.
    @Test func aBodyOverTheLimitIsRefusedAndTheHeadAnsweredThenTheConnectionLingers() throws {
        var limits = HTTPLimits()
        limits.formBody = 1000
        var driver = MachineDriver(rules: .testing(limits: limits), now: Self.t0)
        #expect(driver.received(Wire.postHead("/upload", length: 2000), at: Self.t0) == .dispatch("POST /upload"))
        let request = try #require(driver.requests.last)
        #expect(request.bodyRefusal == .tooLarge(limit: 1000))
        #expect(request.body.isEmpty && request.spooledBody == nil)
        #expect(driver.received(String(repeating: "x", count: 1500) + Wire.get("/"), at: Self.t0) == .none)  // dropped
        #expect(driver.respond(.text("too large", status: .contentTooLarge), at: Self.t0) == .send(413))
        #expect(driver.phase == .closing)
        #expect(driver.flush(at: Self.t0) == .halfClose)
        #expect(driver.phase == .lingering)
        #expect(driver.statusLines == ["HTTP/1.1 413 Content Too Large"])
        #expect(driver.written.contains(Self.closeField))
        #expect(driver.received("more of the body", at: Self.t0) == .none)
        #expect(driver.endOfInput(at: Self.t0) == .close(.lingerEnded))
    }

    @Test func malformedRequestGetsAPlainTextReason() {
        var driver = MachineDriver(now: Self.t0)
        let steps = driver.play { $0.received("GARBAGE\r\n", at: Self.t0) }
        #expect(steps == [.reject(400), .send(400), .halfClose])
        #expect(driver.written.hasSuffix("\r\n\r\n400 Bad Request: malformed request line\n"))
    }

    @Test func timedOutRequestGets408() {
        var driver = MachineDriver.started(in: .head)
        let steps = driver.play { $0.tick(at: Self.t0 + .seconds(10)) }
        #expect(steps == [.reject(408), .send(408), .halfClose])
        #expect(driver.statusLines == ["HTTP/1.1 408 Request Timeout"])
        #expect(driver.written.contains(Self.closeField))
        #expect(!driver.written.contains("Retry-After"))
    }

    @Test func bodyThatFindsNoBudgetGets503WithRetryAfter() {
        var driver = MachineDriver.started(in: .waitingForBudget)
        _ = driver.received("hello", at: Self.t0)
        #expect(driver.tick(at: Self.t0 + .seconds(10)) == .reject(503))
        #expect(driver.reject(at: Self.t0 + .seconds(10)) == .send(503))
        #expect(driver.unconsumedInputCount == 0)  // the waiting body is dropped
        #expect(driver.flush(at: Self.t0 + .seconds(10)) == .halfClose)
        #expect(driver.statusLines == ["HTTP/1.1 503 Service Unavailable"])
        #expect(driver.written.contains("Retry-After: 1\r\n"))
        #expect(driver.written.contains(Self.closeField))
        #expect(driver.bodyGranted(at: Self.t0 + .seconds(11)) == .none)  // a late grant is ignored
    }
}

/// Fields written once (``HTTPHeaders/writtenOnce()``), as a page's security headers are, go
/// out byte for byte as the same fields written on each response: unsafe ones dropped, fields
/// added after them written after them, a removed one gone.
@Suite struct WrittenOnceHeaderTests {
    static let t0 = MachineDriver.start
    static let fixed: HTTPHeaders = ["X-One": "1", "X-Bad": "a\r\nInjected: yes", "X-Two": "two words"]

    /// The bytes of answering a GET with `headers` and a short body.
    func answer(_ headers: HTTPHeaders) -> String {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(HTTPResponse(status: .ok, headers: headers, body: Array("abc".utf8)), at: Self.t0)
        return driver.pending
    }

    @Test func writtenOnceFieldsGoOutAsTheSameFieldsWrittenEachTime() {
        var once = Self.fixed.writtenOnce()
        var each = Self.fixed
        #expect(answer(once) == answer(each))
        #expect(answer(once).contains("X-One: 1\r\nX-Two: two words\r\n"))
        #expect(!answer(once).contains("Injected"))
        once.add(name: "ETag", value: "\"x\"")
        each.add(name: "ETag", value: "\"x\"")
        #expect(answer(once) == answer(each))
        #expect(answer(once).contains("X-Two: two words\r\nETag: \"x\"\r\n"))
        once.remove(name: "X-One")
        each.remove(name: "X-One")
        #expect(answer(once) == answer(each))
        #expect(!answer(once).contains("X-One"))
    }

    /// Written once, the fields are still there to look up, count, walk in order and compare,
    /// and a removed one leaves the others in their order.
    @Test func writtenFieldsAreLookedUpCountedAndComparedLikeAnyOthers() {
        var once = Self.fixed.writtenOnce()
        var each = Self.fixed
        once.add(name: "ETag", value: "\"x\"")
        each.add(name: "ETag", value: "\"x\"")
        #expect(once == each)
        #expect(once["x-two"] == "two words" && once["etag"] == "\"x\"" && once["X-Bad"] != nil)
        #expect(once.count == 4)
        #expect(once.map(\.name) == ["X-One", "X-Bad", "X-Two", "ETag"])
        once.remove(name: "x-bad")
        each.remove(name: "x-bad")
        #expect(once == each && once.count == 3 && once["X-Bad"] == nil)
        #expect(once.map(\.name) == ["X-One", "X-Two", "ETag"])
        #expect(once != Self.fixed.writtenOnce())
    }

    /// A field the encoder writes itself is never written ahead: it stays the encoder's to drop.
    @Test func framingFieldsAreNotWrittenAhead() {
        let headers: HTTPHeaders = ["X-One": "1", "Content-Length": "99", "Date": "then"]
        #expect(headers.writtenOnce().written == nil)
        let bytes = answer(headers.writtenOnce())
        #expect(bytes.contains("Content-Length: 3\r\n"))
        #expect(!bytes.contains("99") && !bytes.contains("then"))
    }
}

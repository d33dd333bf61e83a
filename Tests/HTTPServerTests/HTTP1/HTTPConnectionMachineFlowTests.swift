import Testing
@testable import HTTPServer

/// Requests over one connection under ``HTTPConnectionMachine``: pipelining order,
/// back-pressure on both sides, the client's half-close, and the body budget.
@Suite struct HTTPConnectionMachineFlowTests {
    static let t0 = MachineDriver.start

    // MARK: Pipelining

    @Test func pipelinedRequestIsDispatchedOnlyOnceTheAnswerBeforeIsQueuedAndFlushed() {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.received(Wire.get("/a") + Wire.get("/b"), at: Self.t0) == .dispatch("GET /a"))
        #expect(driver.requests.count == 1)
        #expect(driver.unconsumedInputCount == Wire.get("/b").utf8.count)
        #expect(driver.respond(.bytes("first"), at: Self.t0) == .send(200))
        #expect(driver.phase == .head)
        #expect(driver.requests.count == 1)
        #expect(driver.flush(at: Self.t0) == .dispatch("GET /b"))
        #expect(driver.respond(.bytes("second", status: .created), at: Self.t0) == .send(201))
        #expect(driver.flush(at: Self.t0) == .none)
        #expect(driver.phase == .idle)
        #expect(driver.statusLines == ["HTTP/1.1 200 OK", "HTTP/1.1 201 Created"])
        #expect(driver.written.contains("\r\n\r\nfirstHTTP/1.1 201 Created\r\n"))
        #expect(driver.written.hasSuffix("\r\n\r\nsecond"))
    }

    @Test func pipelinedAnswersComeInRequestOrder() {
        var driver = MachineDriver(now: Self.t0)
        driver.responses = [.bytes("a"), .bytes("b", status: .created), .bytes("c", status: .notFound)]
        let steps = driver.play { $0.received(Wire.get("/a") + Wire.get("/b") + Wire.head("/c"), at: Self.t0) }
        #expect(steps == [.dispatch("GET /a"), .send(200), .dispatch("GET /b"), .send(201), .dispatch("HEAD /c"), .send(404), .none])
        #expect(driver.statusLines == ["HTTP/1.1 200 OK", "HTTP/1.1 201 Created", "HTTP/1.1 404 Not Found"])
        #expect(driver.phase == .idle)
    }

    @Test func requestArrivingWhileRespondingWaitsForTheAnswer() {
        var driver = MachineDriver.started(in: .responding)
        #expect(driver.received(Wire.get("/next"), at: Self.t0) == .none)
        #expect(driver.requests.count == 1)
        driver.responses = [.bytes("a"), .bytes("next")]
        let steps = driver.play { $0.respond(.bytes("a"), at: Self.t0) }
        #expect(steps == [.send(200), .dispatch("GET /next"), .send(200), .none])
    }

    @Test func requestArrivingDuringAStreamWaitsForItsEnd() {
        var driver = MachineDriver.started(in: .streaming)
        #expect(driver.received(Wire.get("/next"), at: Self.t0) == .none)
        #expect(driver.streamEnded(at: Self.t0) == .finishStream(0))
        #expect(driver.phase == .head)
        #expect(driver.flush(at: Self.t0) == .dispatch("GET /next"))
        #expect(driver.written.hasSuffix("0\r\n\r\n"))
    }

    @Test func requestBehindAClosingAnswerIsNeverParsed() {
        var driver = MachineDriver(now: Self.t0)
        driver.responses = [.bytes("a")]
        let steps = driver.play { $0.received(Wire.get("/a", "Connection: close") + Wire.get("/b"), at: Self.t0) }
        #expect(steps == [.dispatch("GET /a"), .send(200), .halfClose])
        #expect(driver.requests.count == 1)
        #expect(driver.unconsumedInputCount == 0)
    }

    @Test func http10KeepAliveServesOneRequestAfterAnother() {
        var driver = MachineDriver(now: Self.t0)
        driver.responses = [.bytes("a"), .bytes("b")]
        let keepAlive = Wire.message("GET / HTTP/1.0", ["Connection: keep-alive"])
        let steps = driver.play { $0.received(keepAlive + Wire.message("GET /last HTTP/1.0", []), at: Self.t0) }
        #expect(steps == [.dispatch("GET /"), .send(200), .dispatch("GET /last"), .send(200), .halfClose])
        #expect(driver.written.contains("Connection: keep-alive\r\n"))
        #expect(driver.written.hasSuffix("Connection: close\r\n\r\nb"))
    }

    // MARK: Back-pressure

    @Test func noParsingWhileUnsentOutputIsAtTheHighWaterMark() {
        var driver = MachineDriver(now: Self.t0)  // output high water 100
        _ = driver.received(Wire.get("/a") + Wire.get("/b"), at: Self.t0)
        #expect(driver.respond(.bytes(String(repeating: "x", count: 60)), at: Self.t0) == .send(200))
        let unsent = driver.pendingOutputCount
        #expect(unsent > 100)
        #expect(driver.flush(at: Self.t0, accepting: unsent - 100) == .none)
        #expect(driver.pendingOutputCount == 100)
        #expect(driver.received(Wire.get("/c"), at: Self.t0) == .none)
        #expect(driver.requests.count == 1)
        #expect(driver.flush(at: Self.t0, accepting: 1) == .dispatch("GET /b"))
    }

    @Test func readingStopsAtTheInputHighWaterMark() {
        var driver = MachineDriver.started(in: .responding)  // input high water 64
        let unpadded = Wire.get("/b", "X-Pad: ").utf8.count
        let request = Wire.get("/b", "X-Pad: " + String(repeating: "p", count: 63 - unpadded))
        _ = driver.received(request, at: Self.t0)
        #expect(driver.unconsumedInputCount == 63)
        #expect(driver.wantsInput)
        _ = driver.received("G", at: Self.t0)
        #expect(!driver.wantsInput)
        _ = driver.respond(.bytes("a"), at: Self.t0)
        #expect(driver.flush(at: Self.t0) == .dispatch("GET /b"))
        #expect(driver.unconsumedInputCount == 1)
        #expect(driver.wantsInput)
    }

    // MARK: Half-close

    @Test func finAfterACompleteRequestStillGetsTheAnswer() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .cancelResponder)
        #expect(driver.phase == .responding)
        #expect(driver.respond(.bytes("answer"), at: Self.t0 + .seconds(1)) == .send(200))
        #expect(driver.flush(at: Self.t0 + .seconds(1)).isClose)  // the reason: see HTTPConnectionMachineBugTests
        #expect(driver.written.hasSuffix("\r\n\r\nanswer"))
        #expect(driver.phase == .closed)
    }

    @Test func finAfterARequestThatAsksToCloseEndsAfterTheAnswerWithoutLingering() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/", "Connection: close"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .cancelResponder)
        #expect(driver.respond(.bytes("answer"), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0) == .close(.responseSentClientClosed))
        #expect(driver.written.hasSuffix("\r\n\r\nanswer"))
    }

    @Test func finBehindPipelinedRequestsAnswersThemAllFirst() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/a") + Wire.get("/b"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .cancelResponder)
        driver.responses = [.bytes("a"), .bytes("b")]
        let steps = driver.play { $0.respond(.bytes("a"), at: Self.t0) }
        #expect(steps.dropLast() == [.send(200), .dispatch("GET /b"), .send(200)])
        #expect(steps.last?.isClose == true)
        #expect(driver.statusLines.count == 2)
    }

    @Test func finWhileAnAnswerIsStillSendingClosesOnceItIsSent() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.get("/"), at: Self.t0)
        _ = driver.respond(.bytes("answer"), at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .none)
        #expect(driver.flush(at: Self.t0, accepting: 10) == .none)
        #expect(driver.phase == .closing)
        #expect(driver.flush(at: Self.t0) == .close(.responseSentClientClosed))
        #expect(driver.written.hasSuffix("\r\n\r\nanswer"))
    }

    @Test(arguments: [
        (HTTPConnectionMachine.Phase.head, HTTPConnectionMachine.CloseReason.clientClosed),
        (.body, .clientClosed),
        (.streaming, .clientClosedDuringStream),
        (.lingering, .lingerEnded),
    ])
    func finClosesAtOnceWithNothingMoreToAnswer(_ phase: HTTPConnectionMachine.Phase, _ reason: HTTPConnectionMachine.CloseReason) {
        var driver = MachineDriver.started(in: phase)
        let written = driver.written
        #expect(driver.endOfInput(at: Self.t0) == .close(reason))
        #expect(driver.phase == .closed)
        #expect(driver.pendingOutputCount == 0)
        #expect(driver.written == written)
        #expect(!driver.wantsInput)
    }

    @Test func finWhileWaitingForTheBudgetStillServesABufferedBody() {
        var driver = MachineDriver.started(in: .waitingForBudget)
        _ = driver.received("hello", at: Self.t0)
        #expect(driver.endOfInput(at: Self.t0) == .none)
        #expect(driver.bodyGranted(at: Self.t0) == .dispatch("POST /upload"))
        #expect(driver.respond(.bytes("ok"), at: Self.t0) == .send(200))
        #expect(driver.flush(at: Self.t0).isClose)
        #expect(driver.written.hasSuffix("\r\n\r\nok"))
    }

    // MARK: Body budget

    @Test(arguments: [
        (["Content-Length: 5"], 5),
        (["Transfer-Encoding: chunked"], 1000),
        (["Transfer-Encoding: chunked", "Content-Type: multipart/form-data; boundary=b"], 3000),
    ])
    func headWithABodyReservesItsSize(_ fields: [String], _ bytes: Int) {
        var limits = HTTPLimits()
        limits.formBody = 1000
        limits.uploadBody = 3000
        var driver = MachineDriver(rules: .testing(limits: limits), now: Self.t0)
        #expect(driver.received(Wire.message("POST / HTTP/1.1", ["Host: x"] + fields), at: Self.t0) == .reserveBody(bytes))
        #expect(driver.phase == .waitingForBudget)
    }

    @Test(arguments: [(Wire.get("/"), "GET /"), (Wire.postHead("/", length: 0), "POST /")])
    func headWithoutABodyReservesNothing(_ request: String, _ dispatched: String) {
        var driver = MachineDriver(now: Self.t0)
        #expect(driver.received(request, at: Self.t0) == .dispatch(dispatched))
    }

    @Test func nothingIsParsedUntilTheBodyIsGranted() {
        var driver = MachineDriver(now: Self.t0)
        _ = driver.received(Wire.message("POST / HTTP/1.1", ["Host: x", "Transfer-Encoding: chunked"]), at: Self.t0)
        let body = "5\r\nhello\r\n0\r\n\r\n"
        #expect(driver.received(body + Wire.get("/next"), at: Self.t0) == .none)
        #expect(driver.unconsumedInputCount == (body + Wire.get("/next")).utf8.count)
        #expect(driver.bodyGranted(at: Self.t0) == .dispatch("POST /"))
        #expect(driver.requests.last?.body == Array("hello".utf8))
        #expect(driver.unconsumedInputCount == Wire.get("/next").utf8.count)
    }

    @Test func waitingBodyStopsReadingAtTheInputHighWaterMark() {
        var driver = MachineDriver.started(in: .waitingForBudget)
        _ = driver.received(String(repeating: "x", count: 63), at: Self.t0)
        #expect(driver.wantsInput)
        _ = driver.received("x", at: Self.t0)
        #expect(!driver.wantsInput)
    }

    @Test func loopThatCannotGrantLeavesTheBodyWaiting() {
        var driver = MachineDriver(now: Self.t0)
        driver.grantsBodies = false
        let steps = driver.play { $0.received(Wire.post("/upload", body: "hello"), at: Self.t0) }
        #expect(steps == [.reserveBody(5)])
        #expect(driver.phase == .waitingForBudget)
        #expect(driver.requests.isEmpty)
        driver.grantsBodies = true
        driver.responses = [.bytes("ok")]
        #expect(driver.play { $0.bodyGranted(at: Self.t0) } == [.dispatch("POST /upload"), .send(200), .none])
    }
}

import HTTPServer
import Synchronization
import Testing

/// Invalid requests get the right status, `Connection: close`, a closed connection, and the
/// server keeps serving others (RFC 9112 §2.2, §3, §5, §6; RFC 9110 §15.5).
@Suite(.timeLimit(.minutes(1))) struct RejectionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "malformed request line", request: "GET /\r\nHost: h\r\n\r\n", status: 400),
        Case(name: "double space in request line", request: "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        Case(name: "lower-case version", request: "GET / http/1.1\r\nHost: h\r\n\r\n", status: 400),
        Case(name: "unsupported version", request: "GET / HTTP/2.0\r\nHost: h\r\n\r\n", status: 505),
        Case(name: "HTTP/1.2", request: "GET / HTTP/1.2\r\nHost: h\r\n\r\n", status: 505),
        Case(name: "unknown method", request: "BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n", status: 501),
        Case(name: "missing Host", request: "GET / HTTP/1.1\r\n\r\n", status: 400),
        Case(name: "empty Host", request: "GET / HTTP/1.1\r\nHost: \r\n\r\n", status: 400),
        Case(name: "repeated Host", request: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        Case(name: "field without colon", request: "GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", status: 400),
        Case(name: "space before colon", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A : 1\r\n\r\n", status: 400),
        Case(name: "obs-fold", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  continued\r\n\r\n", status: 400),
        Case(name: "NUL in value", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
        Case(name: "CR in value", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", status: 400),
        Case(name: "bare LF", request: "GET / HTTP/1.1\nHost: h\n\n", status: 400),
        Case(name: "bad Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", status: 400),
        Case(name: "signed Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", status: 400),
        Case(name: "negative Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", status: 400),
        Case(
            name: "different repeated Content-Length",
            request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", status: 400),
        Case(
            name: "Content-Length and Transfer-Encoding",
            request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400),
        Case(
            name: "unknown transfer coding",
            request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501),
        Case(
            name: "bad chunk size",
            request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
        Case(
            name: "chunk size overflow",
            request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff1\r\n", status: 400),
        Case(
            name: "asterisk outside OPTIONS", request: "GET * HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        Case(
            name: "unsupported expectation",
            request: "POST / HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\nx", status: 417),
    ]

    @Test(arguments: cases)
    func rejectsAndClosesWhileServingOthers(_ testCase: Case) async throws {
        let server = try TestServer()
        let other = try server.connect()
        let bad = try server.connect()
        bad.send(testCase.request)
        let response = try await bad.readResponse()
        #expect(response.status == testCase.status)
        #expect(response.header("Connection") == "close")
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(await bad.isClosedByServer())
        #expect(try await other.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }

    @Test func theResponderHearsOfEveryRejectionBeforeItIsAnswered() async throws {
        let responder = RejectionRecorder()
        let server = try TestServer(responder: responder)
        for request in ["GET / HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", "BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n"] {
            _ = try await server.connect().exchange(request)
        }
        #expect(try await server.connect().exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        #expect(responder.statuses.withLock { $0 } == [400, 505, 501], "in order, and not the request that was served")
        await server.stop()
    }

    @Test func rejectsRequestLineOverLimitWith414() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await client.readResponse().status == 414)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func rejectsHeaderSectionOverLimitWith431() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "b", count: 17 * 1024) + "\r\n\r\n")
        #expect(try await client.readResponse().status == 431)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func rejectsTooManyFieldsWith431() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\n" + (0..<100).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        #expect(try await client.readResponse().status == 431)
        await server.stop()
    }

    @Test func rejectsOversizedBodyWith413WithoutReadingIt() async throws {
        var limits = HTTPLimits()
        limits.formBody = 1000
        let server = try TestServer(limits: limits)
        let client = try server.connect()
        // Only the head is sent: the answer must not wait for the 5,000 body bytes.
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        await server.stop()
    }

    @Test func usesUploadLimitForMultipart() async throws {
        var limits = HTTPLimits()
        limits.formBody = 10
        limits.uploadBody = 100
        let server = try TestServer(limits: limits)
        let client = try server.connect()
        let body = String(repeating: "m", count: 50)
        let response = try await client.exchange(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 50\r\n\r\n\(body)")
        #expect(response.status == 200)
        await server.stop()
    }
}

/// Answers every request with 200 and records the status of each rejection it is told of.
final class RejectionRecorder: HTTPResponder {
    let statuses = Mutex<[Int]>([])

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        .text("ok")
    }

    func rejected(_ rejection: HTTPRejection) {
        statuses.withLock { $0.append(rejection.status.code) }
    }
}

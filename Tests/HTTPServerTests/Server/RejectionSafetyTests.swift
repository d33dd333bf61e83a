import HTTPServer
import Logging
import Testing

/// What a rejection guarantees beyond its status: a `Date`, no second response smuggled
/// after it, a closed connection, and a server that keeps serving others (RFC 9112 §6.3,
/// §11.2; RFC 9110 §6.6.1).
@Suite(.timeLimit(.minutes(1))) struct RejectionSafetyTests {
    @Test func sendsDateOnRejection() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\n\r\n")
        #expect(response.status == 400)
        #expect(response.headerCount("Date") == 1)
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        await server.stop()
    }

    /// Both orders of the two framing fields, with a complete second request hidden in the
    /// body: a server that honoured either length would answer it.
    @Test(arguments: [
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
    ])
    func answersContentLengthWithTransferEncodingOnceAndCloses(_ framing: String) async throws {
        let calls = Counter()
        let server = try TestServer(
            responder: ClosureResponder { request in
                calls.increment()
                return .text("served \(request.path)")
            })
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\n\(framing)\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 400)
        #expect(response.header("Connection") == "close")
        let (rest, closed) = await client.readToEnd()
        #expect(closed)
        #expect(rest.isEmpty, "a second response followed: \(String(decoding: rest, as: UTF8.self))")
        #expect(calls.current == 0)
        await server.stop()
        #expect(!server.log.entries.contains { $0.message.contains("/smuggled") })
    }

    @Test func rejectsLineFeedInsideHeaderValue() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\nInjected: yes\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 400)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func closesAfterTooManyFieldsAndServesOthers() async throws {
        let server = try TestServer()
        let other = try server.connect()
        let client = try server.connect()
        client.send("GET / HTTP/1.1\r\nHost: h\r\n" + (0..<100).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 431)
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        #expect(try await other.exchange("GET /other HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        #expect(try await server.connect().exchange("GET /new HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }

    @Test func closesAfterOversizedBodyAndServesOthers() async throws {
        var limits = HTTPLimits()
        limits.formBody = 1000
        let server = try TestServer(limits: limits)
        let other = try server.connect()
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "x", count: 5000))
        let response = try await client.readResponse()
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        #expect(try await other.exchange("GET /other HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        #expect(try await server.connect().exchange("GET /new HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }
}

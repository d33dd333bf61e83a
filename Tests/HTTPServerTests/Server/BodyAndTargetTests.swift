import HTTPServer
import Testing

/// Chunked bodies, `Expect: 100-continue`, absolute-form and asterisk-form targets over real
/// sockets (RFC 9112 §3.2, §7.1; RFC 9110 §9.3.7, §10.1.1).
@Suite(.timeLimit(.minutes(1))) struct BodyAndTargetTests {
    @Test func decodesChunkedBodyIgnoringExtensionsAndTrailers() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send(
            "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: dropped\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.text.hasSuffix("body=hello world"))
        // The connection stays usable after the trailers.
        #expect(try await client.exchange("GET /next HTTP/1.1\r\nHost: h\r\n\r\n").text.hasPrefix("GET /next "))
        await server.stop()
    }

    @Test func readsChunkedBodyArrivingInPieces() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(clock: clock)
        let client = try server.connect()
        for piece in ["POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3", "\r\nab", "c\r", "\n0\r\n", "\r\n"] {
            client.send(piece)
            await clock.settle()  // the server reads each piece on its own
        }
        #expect(try await client.readResponse().text.hasSuffix("body=abc"))
        await server.stop()
    }

    @Test func rejectsChunkedBodyOverLimitWith413() async throws {
        var limits = HTTPLimits()
        limits.formBody = 8
        let server = try TestServer(limits: limits)
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 413)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func sendsContinueBeforeBodyWhenExpected() async throws {
        // The server's clock stands still: a test process starved of threads (the whole suite
        // under ThreadSanitizer on two cores) must not turn a slow `send` into a 408.
        let server = try TestServer(clock: ManualServerClock())
        let client = try server.connect()
        client.send("POST /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let interim = try await client.readResponse()
        #expect(interim.status == 100)
        client.send("data")
        let final = try await client.readResponse()
        #expect(final.status == 200)
        #expect(final.text.hasSuffix("body=data"))
        await server.stop()
    }

    @Test func answers413InsteadOfContinueForOversizedBody() async throws {
        var limits = HTTPLimits()
        limits.formBody = 10
        let server = try TestServer(limits: limits)
        let client = try server.connect()
        client.send("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 413)
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func reducesAbsoluteFormTargetToPath() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET http://example.com/a/b?c=d HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(response.text.hasPrefix("GET /a/b query=c=d "))
        await server.stop()
    }

    @Test func answersOptionsAsteriskWithAllow() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.header("Allow") == "GET, HEAD, POST, OPTIONS")
        #expect(response.header("Content-Length") == "0")
        await server.stop()
    }

    @Test func ignoresEmptyLinesBeforeRequestLine() async throws {
        let server = try TestServer()
        let client = try server.connect()
        #expect(try await client.exchange("\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }

    @Test func servesRequestsSentBeforeHalfClose() async throws {
        let server = try TestServer()
        let client = try server.connect()
        client.send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        client.shutdownWrite()
        #expect(try await client.readResponse().text.hasPrefix("GET /1 "))
        #expect(try await client.readResponse().text.hasPrefix("GET /2 "))
        #expect(await client.isClosedByServer())
        await server.stop()
    }
}

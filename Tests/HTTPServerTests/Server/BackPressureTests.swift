import HTTPServer
import Testing

/// A client that sends but never reads cannot make the server buffer without bound.
@Suite(.timeLimit(.minutes(1))) struct BackPressureTests {
    @Test func stopsParsingPipelinedRequestsForClientThatDoesNotRead() async throws {
        let calls = Counter()
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 1024 * 1024)
        let server = try TestServer(
            responder: ClosureResponder { _ in
                calls.increment()
                return HTTPResponse(status: .ok, body: big)
            })
        let client = try server.connect()
        client.send(String(repeating: "GET /big HTTP/1.1\r\nHost: h\r\n\r\n", count: 200))
        // Wait until the server stops producing (the count is stable for 300 ms), at most 5 s.
        var afterFill = calls.current
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(300))
            let now = calls.current
            if now == afterFill && now > 0 { break }
            afterFill = now
        }
        // 200 MiB were asked for; only what the kernel's socket buffers hold plus one response
        // in the server's output buffer was produced, and production has stopped.
        #expect(afterFill < 20)
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.current == afterFill)
        // Reading resumes the pipeline.
        for _ in 0..<(afterFill + 2) { #expect(try await client.readResponse().body.count == big.count) }
        #expect(calls.current >= afterFill + 2)
        // Responses still queued for this client would hold a graceful shutdown for its
        // whole grace period; the client goes away first.
        client.close()
        await server.stop()
    }
}

import Foundation
import HTTPServer
import TestSupport
import Testing

/// Streamed response bodies (server-sent events): chunked on HTTP/1.1, until close on 1.0,
/// producers cancelled when the client leaves or the server shuts down (RFC 9112 §7.1).
@Suite(.timeLimit(.minutes(1))) struct StreamingTests {
    static func events(_ pieces: [String], finished: Counter? = nil) -> ClosureResponder {
        ClosureResponder { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/event-stream"],
                stream: HTTPBodyStream { writer in
                    for piece in pieces { await writer.write(piece) }
                    finished?.increment()
                })
        }
    }

    /// Reads until `marker` has arrived (or the connection ends); the text received.
    static func read(_ client: RawClient, until marker: String) async -> String {
        while !String(decoding: client.buffer, as: UTF8.self).contains(marker) {
            guard await client.read().isData else { break }
        }
        return String(decoding: client.buffer, as: UTF8.self)
    }

    @Test func streamsChunkedBodyAndKeepsConnection() async throws {
        let server = try TestServer(responder: Self.events(["data: a\n\n", "data: bc\n\n"]))
        let client = try server.connect()
        client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        let text = await Self.read(client, until: "0\r\n\r\n")
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n9\r\ndata: a\n\n\r\na\r\ndata: bc\n\n\r\n0\r\n\r\n"))
        client.buffer.removeAll()
        client.send("HEAD /again HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try await client.readResponse(isHead: true)
        #expect(head.status == 200)
        await server.stop()
    }

    @Test func streamsUntilCloseToHTTP10Client() async throws {
        let server = try TestServer(responder: Self.events(["one ", "two"]))
        let client = try server.connect()
        client.send("GET /events HTTP/1.0\r\n\r\n")
        let (bytes, closed) = await client.readToEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(closed)
        #expect(text.contains("Connection: close\r\n"))
        #expect(!text.contains("Transfer-Encoding"))
        #expect(text.hasSuffix("\r\n\r\none two"))
        await server.stop()
    }

    @Test func answersHeadWithoutRunningProducer() async throws {
        let finished = Counter()
        let server = try TestServer(responder: Self.events(["x"], finished: finished))
        let client = try server.connect()
        client.send("HEAD /events HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await client.readResponse(isHead: true)
        #expect(response.header("Transfer-Encoding") == "chunked")
        // The connection goes on, and the producer never ran.
        client.send("HEAD /events HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await client.readResponse(isHead: true).status == 200)
        // `stop()` waits for every task the connections started, a producer's included.
        await server.stop()
        #expect(finished.current == 0)
    }

    @Test func cancelsProducerWhenClientLeaves() async throws {
        let ended = Counter()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                HTTPResponse(
                    status: .ok,
                    stream: HTTPBodyStream { writer in
                        while await writer.write("tick\n") {
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        ended.increment()
                    })
            })
        let client = try server.connect()
        client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = await Self.read(client, until: "tick")
        client.close()
        try await ended.wait(until: 1)
        #expect(ended.current == 1)
        await server.stop()
    }

    @Test func endsStreamsAtShutdown() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                HTTPResponse(
                    status: .ok,
                    stream: HTTPBodyStream { writer in
                        await writer.write("hello\n")
                        try? await Task.sleep(for: .seconds(3600))  // until cancelled
                    })
            }, clock: clock)
        let client = try server.connect()
        client.send("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = await Self.read(client, until: "hello")
        let shutdown = ShutdownInProgress(server.server)
        // Time never moves: the stream ends at once, not when the grace period runs out.
        let (bytes, closed) = await client.readToEnd()
        #expect(closed)
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("0\r\n\r\n"))
        client.close()
        #expect(try await shutdown.returns())
        await server.stop()
    }
}

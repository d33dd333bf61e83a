import HTTPServer
import Logging
import TestSupport
import Testing

/// A streamed response (server-sent events) whose client does not keep up is dropped, never
/// buffered without bound: at most ``HTTPServerConfiguration/streamBufferLimit`` bytes wait in
/// the loop's inbox and as many in the connection's output.
@Suite struct SlowStreamReaderTests {
    static let limit = 64 * 1024

    /// A stream that writes `piece`-byte chunks until a write fails, counting the bytes the
    /// writer accepted and, when it gives up, `refused`; `pause` runs between writes.
    static func firehose(
        piece: Int, accepted: Counter, refused: Counter, pause: @escaping @Sendable () async -> Void = {}
    ) -> ClosureResponder {
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: piece)
        return ClosureResponder { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/event-stream"],
                stream: HTTPBodyStream { writer in
                    while await writer.write(bytes) {
                        accepted.add(bytes.count)
                        await pause()
                    }
                    refused.increment()
                })
        }
    }

    /// On the loop's own thread a producer that never suspends keeps the loop from running, so
    /// nothing it writes can be sent meanwhile: its writes must start failing at the limit
    /// (before the bound, this test never ended and the inbox grew until memory ran out).
    @Test(.timeLimit(.minutes(1)))
    func refusesWritesPastTheLimitWhenTheProducerOutrunsTheLoop() async throws {
        let accepted = Counter()
        let refused = Counter()
        let server = try TestServer(
            responder: Self.firehose(piece: 4096, accepted: accepted, refused: refused), execution: .eventLoop,
            streamBufferLimit: Self.limit)
        let client = try server.connect()
        client.send("GET /firehose HTTP/1.1\r\nHost: h\r\n\r\n")
        try await refused.wait(until: 1, limit: .seconds(20))
        #expect(refused.current == 1)
        #expect(accepted.current == Self.limit)
        #expect(try await SocketRobustnessTests.waitForLog(server) { $0.message.hasSuffix("streaming client does not read") })
        let (bytes, closed) = await client.readToEnd()
        #expect(closed)
        // The head, and at most what was accepted, in chunks: the stream is cut, not ended.
        #expect(bytes.count < Self.limit + 4096)
        #expect(!String(decoding: bytes, as: UTF8.self).hasSuffix("0\r\n\r\n"))
        #expect(try await server.connect().exchange("HEAD /next HTTP/1.1\r\nHost: h\r\n\r\n").status == 200)
        await server.stop()
    }

    /// A client that stops reading: the kernel's socket buffers fill, then the connection's
    /// output passes the limit and the connection is dropped; the producer's next write fails.
    /// The server's clock stands still, so only the bound can end the stream (not the write
    /// timeout), however long a starved test process takes to fill the buffers.
    @Test(.timeLimit(.minutes(2)))
    func dropsAStreamingClientThatStopsReading() async throws {
        let accepted = Counter()
        let refused = Counter()
        let server = try TestServer(
            responder: Self.firehose(piece: 16 * 1024, accepted: accepted, refused: refused, pause: { await Task.yield() }),
            streamBufferLimit: Self.limit, clock: ManualServerClock())
        let client = try server.connect()
        TestSocket.setReceiveBuffer(client.fd, bytes: 4096)
        client.send("GET /firehose HTTP/1.1\r\nHost: h\r\n\r\n")
        try await refused.wait(until: 1, limit: .seconds(90))
        #expect(refused.current == 1)
        #expect(try await SocketRobustnessTests.waitForLog(server) { $0.message.hasSuffix("streaming client does not read") })
        // What the two kernels' socket buffers took (at most 4 MiB sending and the 4 KiB asked
        // for receiving, as tcp_wmem/tcp_rmem allow) plus the bound, twice: far below what an
        // unbounded server would have queued by now.
        #expect(accepted.current < 8 * 1024 * 1024)
        let (bytes, closed) = await client.readToEnd()
        #expect(closed)
        #expect(bytes.count < accepted.current + 4096)
        await server.stop()
    }
}

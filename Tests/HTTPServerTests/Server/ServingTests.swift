import Foundation
import HTTPServer
import Logging
import Testing

/// Requests and responses over real sockets: framing, persistence, HEAD, versions (RFC 9112).
@Suite(.timeLimit(.minutes(1))) struct ServingTests {
    @Test func answersGetWithDateContentLengthAndBody() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET /hello?x=1 HTTP/1.1\r\nHost: example\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.text == "GET /hello query=x=1 version=HTTP/1.1 host=example body=")
        #expect(response.header("Content-Length") == String(response.body.count))
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        #expect(response.header("Connection") == nil)
        await server.stop()
    }

    @Test func keepsConnectionOpenAcrossRequests() async throws {
        let server = try TestServer()
        let client = try server.connect()
        for index in 0..<5 {
            let response = try await client.exchange("GET /\(index) HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(response.text.hasPrefix("GET /\(index) "))
        }
        await server.stop()
    }

    @Test func closesAfterConnectionClose() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func closesHTTP10ConnectionByDefault() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let response = try await client.exchange("GET /old HTTP/1.0\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.text.contains("version=HTTP/1.0"))
        #expect(response.header("Connection") == "close")
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func keepsHTTP10ConnectionWithKeepAlive() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let first = try await client.exchange("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(first.header("Connection") == "keep-alive")
        let second = try await client.exchange("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(second.text.hasPrefix("GET /b "))
        await server.stop()
    }

    @Test func answersHeadWithoutBodyButWithContentLength() async throws {
        let server = try TestServer()
        let client = try server.connect()
        let get = try await client.exchange("GET /page HTTP/1.1\r\nHost: h\r\n\r\n")
        client.send("HEAD /page HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try await client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String("HEAD /page query=- version=HTTP/1.1 host=h body=".utf8.count))
        #expect(head.body.isEmpty)
        // Nothing else arrives: the next response starts right after the head.
        let next = try await client.exchange("GET /page HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(next.text == get.text)
        await server.stop()
    }

    @Test func deliversContentLengthBodyToResponder() async throws {
        let clock = ManualServerClock()
        let server = try TestServer(clock: clock)
        let client = try server.connect()
        client.send("POST /form HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello")
        await clock.settle()  // the server has read the first part before the rest is sent
        client.send(" world")
        let response = try await client.readResponse()
        #expect(response.text.hasSuffix("body=hello world"))
        await server.stop()
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        let delays = [60, 0, 30]
        let server = try TestServer(
            responder: ClosureResponder { request in
                let index = Int(request.path.dropFirst()) ?? 0
                try? await Task.sleep(for: .milliseconds(delays[index]))
                return .text("response \(index)")
            })
        let client = try server.connect()
        client.send((0..<3).map { "GET /\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined())
        for index in 0..<3 {
            #expect(try await client.readResponse().text == "response \(index)")
        }
        await server.stop()
    }

    @Test func servesManyConnectionsConcurrently() async throws {
        // Every responder waits until all twenty are in flight at once. A server answering one
        // at a time would leave the first waiting alone until the limit, so no wall clock (and
        // no machine load) decides the outcome.
        let inFlight = Counter()
        let server = try TestServer(
            responder: ClosureResponder { _ in
                inFlight.increment()
                try? await inFlight.wait(until: 20, limit: .seconds(20))
                return .text(inFlight.current >= 20 ? "together" : "alone")
            })
        let clients = try (0..<20).map { _ in try server.connect() }
        for client in clients { client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n") }
        for client in clients {
            #expect(try await client.readResponse(timeout: .seconds(30)).text == "together")
        }
        await server.stop()
    }

    @Test func writesAccessLogLine() async throws {
        let server = try TestServer()
        let client = try server.connect()
        _ = try await client.exchange("GET /logged HTTP/1.1\r\nHost: h\r\n\r\n")
        await server.stop()
        let lines = server.log.entries.map(\.message)
        #expect(lines.contains { $0.hasPrefix("127.0.0.1 GET /logged 200 ") && $0.hasSuffix("ms") })
    }

    @Test func dropsFramingHeadersSetByResponder() async throws {
        let server = try TestServer(
            responder: ClosureResponder { _ in
                HTTPResponse(
                    status: .ok,
                    headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "X-Bad": "a\r\nInjected: yes", "X-Good": "1"],
                    body: Array("four".utf8))
            })
        let client = try server.connect()
        let response = try await client.exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(response.header("Content-Length") == "4")
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("Injected") == nil)
        #expect(response.header("X-Good") == "1")
        #expect(response.text == "four")
        await server.stop()
    }
}
